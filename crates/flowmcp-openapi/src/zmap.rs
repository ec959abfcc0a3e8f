//! JSON Schema to the `z` grammar (chapter 02) and to the output-schema subset (chapter 04).
//! What the grammar cannot say becomes a review note, never a silently weaker check.

use std::borrow::Cow;

use flowmcp_spec::model::ZBlock;
use serde_json::{Map, Value, json};

use crate::ReviewKind;
use crate::doc::CYCLE_MARK;

/// A parameter's `z` block with the notes about what it could not express.
pub(crate) struct Z {
    pub(crate) primitive: String,
    pub(crate) options: Vec<String>,
    pub(crate) notes: Vec<(ReviewKind, String)>,
}

/// The JSON type of a schema: `type` (the first that is not `null` when a list), else guessed
/// from its keywords; `integer` is kept apart from `number`.
pub(crate) fn type_of(schema: &Value) -> Option<String> {
    match schema.get("type") {
        Some(Value::String(t)) => return Some(t.clone()),
        Some(Value::Array(ts)) => {
            return ts
                .iter()
                .filter_map(Value::as_str)
                .find(|t| *t != "null")
                .map(str::to_string);
        }
        _ => {}
    }
    if schema.get("properties").is_some() {
        return Some("object".into());
    }
    if schema.get("items").is_some() {
        return Some("array".into());
    }
    if let Some(Value::Array(values)) = schema.get("enum") {
        let first = values.iter().find(|v| !v.is_null())?;
        return Some(
            match first {
                Value::String(_) => "string",
                Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
                Value::Number(_) => "number",
                Value::Bool(_) => "boolean",
                _ => return None,
            }
            .into(),
        );
    }
    for key in ["allOf", "oneOf", "anyOf"] {
        if let Some(Value::Array(parts)) = schema.get(key)
            && let Some(t) = parts.iter().find_map(type_of)
        {
            return Some(t);
        }
    }
    None
}

/// `allOf` folded into one schema (properties, required and the first type merged); other
/// schemas as they are.
pub(crate) fn merged(schema: &Value) -> Cow<'_, Value> {
    let Some(Value::Array(parts)) = schema.get("allOf") else {
        return Cow::Borrowed(schema);
    };
    let mut out = match schema {
        Value::Object(m) => {
            let mut m = m.clone();
            m.remove("allOf");
            m
        }
        _ => Map::new(),
    };
    for part in parts {
        let part = merged(part).into_owned();
        let Value::Object(p) = part else { continue };
        for (k, v) in p {
            match (k.as_str(), out.get_mut(&k)) {
                ("properties", Some(Value::Object(existing))) => {
                    if let Value::Object(more) = v {
                        existing.extend(more);
                    }
                }
                ("required", Some(Value::Array(existing))) => {
                    if let Value::Array(more) = v {
                        existing.extend(more);
                    }
                }
                (_, Some(_)) => {}
                (_, None) => {
                    out.insert(k, v);
                }
            }
        }
    }
    Cow::Owned(Value::Object(out))
}

/// A number as the grammar writes it (`1`, `0.5`, `-3`).
fn num(v: &Value) -> Option<String> {
    let n = v.as_f64()?;
    if !n.is_finite() {
        return None;
    }
    Some(flowmcp_spec::js::number_to_string(n))
}

/// A scalar as an enum item or a `default(…)` argument, when the grammar can write it.
pub(crate) fn scalar_text(v: &Value) -> Option<String> {
    let text = match v {
        Value::String(s) => s.clone(),
        Value::Number(_) => num(v)?,
        Value::Bool(b) => b.to_string(),
        _ => return None,
    };
    let writable = !text.is_empty()
        && !text.contains([',', '(', ')', '{', '}', '\'', '"', '\\', '\n', '\r'])
        && text.trim() == text;
    writable.then_some(text)
}

/// `schema` (a parameter's or a body member's) as a `z` block; `required` says whether it
/// gets `optional()`.
pub(crate) fn z_of(schema: &Value, required: bool) -> Z {
    let schema = merged(schema);
    let mut notes = Vec::new();
    let mut options = Vec::new();
    if schema.get(CYCLE_MARK).is_some() {
        notes.push((
            ReviewKind::Ref,
            "a reference cycle was cut here; the value's shape is not checked".to_string(),
        ));
    }
    if let Some(Value::String(r)) = schema.get("$ref") {
        notes.push((
            ReviewKind::Ref,
            format!(
                "{} is too large or deep to read here; the value's shape is not checked",
                one_line(r)
            ),
        ));
    }
    for key in ["oneOf", "anyOf"] {
        if schema.get(key).is_some() {
            notes.push((
                ReviewKind::Type,
                format!("`{key}` cannot be written in z; only the first branch's type is checked"),
            ));
        }
    }
    if schema.get("not").is_some() {
        notes.push((ReviewKind::Type, "`not` is not checked".to_string()));
    }
    let ty = type_of(&schema);
    let enum_values: Option<Vec<&Value>> = match schema.get("enum") {
        Some(Value::Array(vs)) => Some(vs.iter().filter(|v| !v.is_null()).collect()),
        _ => None,
    };
    let mut primitive = match ty.as_deref() {
        Some("integer") => {
            notes.push((
                ReviewKind::Type,
                "an integer is expected; number() also accepts fractions".to_string(),
            ));
            "number()".to_string()
        }
        Some("number") => "number()".to_string(),
        Some("boolean") => "boolean()".to_string(),
        Some("array") => "array()".to_string(),
        Some("object") => "object()".to_string(),
        Some("string") => "string()".to_string(),
        other => {
            notes.push((
                ReviewKind::Type,
                match other {
                    Some(t) => format!("type {t:?} has no z primitive; string() is used"),
                    None => "the document gives no type; string() is used".to_string(),
                },
            ));
            "string()".to_string()
        }
    };
    if let Some(values) = &enum_values
        && !values.is_empty()
        && matches!(
            ty.as_deref(),
            Some("string" | "integer" | "number" | "boolean") | None
        )
    {
        let texts: Option<Vec<String>> = values.iter().map(|v| scalar_text(v)).collect();
        match texts {
            Some(texts) if !texts.is_empty() => {
                let mut unique: Vec<String> = Vec::new();
                for t in texts {
                    if !unique.contains(&t) {
                        unique.push(t);
                    }
                }
                primitive = format!("enum({})", unique.join(","));
                if ty.as_deref() != Some("string") {
                    notes.push((
                        ReviewKind::Type,
                        "the enum's values are not strings; the API may expect them as numbers or booleans".to_string(),
                    ));
                }
            }
            _ => notes.push((
                ReviewKind::Type,
                "the enum's values cannot be written in enum(…) (commas, brackets, quotes or empty values); they are not checked".to_string(),
            )),
        }
    }
    let is_enum = primitive.starts_with("enum(");
    match ty.as_deref() {
        Some("integer" | "number") if !is_enum => {
            if let Some(min) = schema.get("minimum").and_then(num) {
                options.push(format!("min({min})"));
            }
            if let Some(max) = schema.get("maximum").and_then(num) {
                options.push(format!("max({max})"));
            }
            for (key, bound) in [("exclusiveMinimum", "min"), ("exclusiveMaximum", "max")] {
                match schema.get(key) {
                    Some(Value::Bool(true)) => notes.push((
                        ReviewKind::Type,
                        format!("`{key}`: {bound}() includes the bound itself"),
                    )),
                    Some(v @ Value::Number(_)) => {
                        if let Some(n) = num(v) {
                            options.push(format!("{bound}({n})"));
                        }
                        notes.push((
                            ReviewKind::Type,
                            format!("`{key}`: {bound}() includes the bound itself"),
                        ));
                    }
                    _ => {}
                }
            }
            if schema.get("multipleOf").is_some() {
                notes.push((ReviewKind::Type, "`multipleOf` is not checked".to_string()));
            }
        }
        Some("string") if !is_enum => {
            let min = schema.get("minLength").and_then(Value::as_u64);
            let max = schema.get("maxLength").and_then(Value::as_u64);
            match (min, max) {
                (Some(a), Some(b)) if a == b => options.push(format!("length({a})")),
                _ => {
                    if let Some(a) = min.filter(|a| *a > 0) {
                        options.push(format!("min({a})"));
                    }
                    if let Some(b) = max {
                        options.push(format!("max({b})"));
                    }
                }
            }
            if let Some(Value::String(p)) = schema.get("pattern") {
                notes.push((
                    ReviewKind::Type,
                    format!("pattern {} is not checked (z has no patterns)", one_line(p)),
                ));
            }
            if let Some(Value::String(f)) = schema.get("format")
                && !matches!(
                    f.as_str(),
                    "" | "string" | "text" | "password" | "byte" | "binary"
                )
            {
                notes.push((ReviewKind::Type, format!("format {f:?} is not checked")));
            }
        }
        Some("array") => {
            let min = schema.get("minItems").and_then(Value::as_u64);
            let max = schema.get("maxItems").and_then(Value::as_u64);
            match (min, max) {
                (Some(a), Some(b)) if a == b => options.push(format!("length({a})")),
                (None, None) | (Some(0), None) => {}
                _ => notes.push((
                    ReviewKind::Type,
                    "`minItems`/`maxItems` are not checked".to_string(),
                )),
            }
            if let Some(items) = schema.get("items") {
                let items = merged(items);
                let t = type_of(&items).unwrap_or_else(|| "any".to_string());
                let what = match items.get("enum") {
                    Some(Value::Array(vs)) => format!(
                        "one of {}",
                        vs.iter()
                            .map(Value::to_string)
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                    _ => t,
                };
                notes.push((
                    ReviewKind::Type,
                    format!("the items ({}) are not checked", one_line(&what)),
                ));
            }
        }
        Some("object")
            if schema.get("properties").is_some()
                || schema.get("additionalProperties").is_some() =>
        {
            notes.push((
                ReviewKind::Type,
                "the object's members are not checked (object() has no members)".to_string(),
            ));
        }
        _ => {}
    }
    let default = schema.get("default").filter(|d| !d.is_null());
    let mut has_default = false;
    if let Some(d) = default {
        match scalar_text(d) {
            Some(text) if !matches!(primitive.as_str(), "array()" | "object()") => {
                let candidate = format!("default({text})");
                let mut probe = options.clone();
                probe.push(candidate.clone());
                if parses(&primitive, &probe) {
                    options.push(candidate);
                    has_default = true;
                } else {
                    notes.push((
                        ReviewKind::Type,
                        format!(
                            "the default {} does not pass the check; it is left out",
                            one_line(&d.to_string())
                        ),
                    ));
                }
            }
            _ => notes.push((
                ReviewKind::Type,
                format!(
                    "the default {} cannot be written in z; it is left out",
                    one_line(&d.to_string())
                ),
            )),
        }
    }
    if !required && !has_default {
        options.push("optional()".to_string());
    }
    if !parses(&primitive, &options) {
        notes.push((
            ReviewKind::Type,
            format!(
                "{primitive} with {} is not a valid z block; string() is used",
                options.join(", ")
            ),
        ));
        primitive = "string()".to_string();
        options.retain(|o| o == "optional()");
    }
    Z {
        primitive,
        options,
        notes,
    }
}

/// Whether the grammar reads the block (under the spec profile).
pub(crate) fn parses(primitive: &str, options: &[String]) -> bool {
    let block = ZBlock {
        primitive: primitive.to_string(),
        options: options.to_vec(),
    };
    match block.parse(false) {
        Ok(z) => z.check_default().is_ok(),
        Err(_) => false,
    }
}

/// A value checked against a `z` block.
pub(crate) fn accepts(primitive: &str, options: &[String], value: &Value) -> bool {
    let block = ZBlock {
        primitive: primitive.to_string(),
        options: options.to_vec(),
    };
    match block.parse(false) {
        Ok(z) => z.validate(value).is_ok(),
        Err(_) => false,
    }
}

/// Text with HTML tags removed (documents often write descriptions in HTML).
pub(crate) fn strip_tags(text: &str) -> String {
    const INLINE: [&str; 9] = ["a", "b", "i", "em", "strong", "code", "span", "u", "tt"];
    let mut out = String::with_capacity(text.len());
    let mut in_tag = false;
    let mut tag = String::new();
    for c in text.chars() {
        match c {
            '<' if !in_tag => {
                in_tag = true;
                tag.clear();
            }
            '>' if in_tag => {
                in_tag = false;
                let name = tag
                    .trim_start_matches('/')
                    .split(|c: char| c.is_whitespace() || c == '/')
                    .next()
                    .unwrap_or_default()
                    .to_ascii_lowercase();
                // Block tags (`<p>`, `<br>`, `<li>`) separate words; inline ones do not.
                if !INLINE.contains(&name.as_str()) {
                    out.push(' ');
                }
            }
            c if in_tag => tag.push(c),
            c => out.push(c),
        }
    }
    if in_tag {
        // Not a tag after all (`a < b`): keep the text.
        return text.to_string();
    }
    out
}

/// Text on one line, shortened.
pub(crate) fn one_line(text: &str) -> String {
    let flat: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let flat = flat.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() > 160 {
        let mut s: String = flat.chars().take(157).collect();
        s.push_str("...");
        s
    } else {
        flat
    }
}

/// The output-schema subset of chapter 04 (types `string`, `number`, `boolean`, `object`,
/// `array`; `description`, `nullable`, `enum`, `format`; at most 4 levels). `None` when the
/// schema has no type to give. `lossy` is set when something was left out.
pub(crate) fn output_schema(schema: &Value, level: usize, lossy: &mut bool) -> Option<Value> {
    let mut budget = OUTPUT_NODES;
    output_node(schema, level, lossy, &mut budget)
}

/// At most this many nodes in one output schema (the rest is left out, and noted).
const OUTPUT_NODES: usize = 400;

fn output_node(
    schema: &Value,
    level: usize,
    lossy: &mut bool,
    budget: &mut usize,
) -> Option<Value> {
    if *budget == 0 {
        *lossy = true;
        return None;
    }
    *budget -= 1;
    let schema = merged(schema);
    if schema.get(CYCLE_MARK).is_some() {
        *lossy = true;
        return Some(json!({ "type": "object" }));
    }
    if schema.get("oneOf").is_some() || schema.get("anyOf").is_some() {
        *lossy = true;
    }
    let ty = match type_of(&schema)?.as_str() {
        "integer" | "number" => "number",
        "string" => "string",
        "boolean" => "boolean",
        "array" => "array",
        "object" => "object",
        _ => return None,
    };
    let mut out = Map::new();
    out.insert("type".into(), Value::String(ty.into()));
    if let Some(Value::String(d)) = schema.get("description") {
        let d = one_line(&strip_tags(d));
        if !d.is_empty() {
            out.insert("description".into(), Value::String(d));
        }
    }
    let nullable = schema.get("nullable") == Some(&Value::Bool(true))
        || schema.get("x-nullable") == Some(&Value::Bool(true))
        || matches!(schema.get("type"), Some(Value::Array(ts)) if ts.iter().any(|t| t == "null"));
    if nullable {
        out.insert("nullable".into(), Value::Bool(true));
    }
    if let Some(Value::String(f)) = schema.get("format") {
        out.insert("format".into(), Value::String(f.clone()));
    }
    if let Some(Value::Array(vs)) = schema.get("enum")
        && ty != "object"
        && ty != "array"
    {
        let vs: Vec<Value> = vs.iter().filter(|v| !v.is_null()).cloned().collect();
        if !vs.is_empty() {
            out.insert("enum".into(), Value::Array(vs));
        }
    }
    match ty {
        "object" => {
            if let Some(Value::Object(props)) = schema.get("properties") {
                if level >= 4 {
                    *lossy = true;
                } else {
                    let mut ps = Map::new();
                    for (k, v) in props {
                        match output_node(v, level + 1, lossy, budget) {
                            Some(s) => {
                                ps.insert(k.clone(), s);
                            }
                            None => *lossy = true,
                        }
                    }
                    out.insert("properties".into(), Value::Object(ps));
                }
            }
        }
        "array" => {
            if let Some(items) = schema.get("items") {
                if level >= 4 {
                    *lossy = true;
                } else {
                    match output_node(items, level + 1, lossy, budget) {
                        Some(s) => {
                            out.insert("items".into(), s);
                        }
                        None => *lossy = true,
                    }
                }
            }
        }
        _ => {}
    }
    Some(Value::Object(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn i41_string_lengths_and_enums_map_to_options() {
        let z = z_of(
            &json!({"type": "string", "minLength": 2, "maxLength": 5}),
            true,
        );
        assert_eq!(z.primitive, "string()");
        assert_eq!(z.options, ["min(2)", "max(5)"]);
        assert!(z.notes.is_empty());
        let z = z_of(
            &json!({"type": "string", "enum": ["a", "b"], "default": "b"}),
            false,
        );
        assert_eq!(z.primitive, "enum(a,b)");
        assert_eq!(z.options, ["default(b)"]);
        let z = z_of(
            &json!({"type": "string", "minLength": 3, "maxLength": 3}),
            false,
        );
        assert_eq!(z.options, ["length(3)", "optional()"]);
    }

    #[test]
    fn i41_what_z_cannot_say_is_noted() {
        let z = z_of(
            &json!({"type": "integer", "minimum": 1, "maximum": 100}),
            true,
        );
        assert_eq!(z.primitive, "number()");
        assert_eq!(z.options, ["min(1)", "max(100)"]);
        assert!(z.notes.iter().any(|(_, n)| n.contains("integer")));
        let z = z_of(&json!({"type": "string", "pattern": "^[a-z]+$"}), true);
        assert!(z.notes.iter().any(|(_, n)| n.contains("pattern")));
        let z = z_of(&json!({"type": "string", "enum": ["a,b", "c"]}), true);
        assert_eq!(z.primitive, "string()");
        assert!(z.notes.iter().any(|(_, n)| n.contains("enum")));
    }

    #[test]
    fn i41_output_descriptions_lose_their_html() {
        let mut lossy = false;
        let s = json!({"type": "object", "description": "<p>A <code>grok</code> classifier.</p>"});
        let out = output_schema(&s, 1, &mut lossy).unwrap_or_default();
        assert_eq!(out["description"], json!("A grok classifier."));
    }

    #[test]
    fn i41_output_schema_keeps_the_subset_and_four_levels() {
        let mut lossy = false;
        let s = json!({"type": "object", "properties": {"a": {"type": "object", "properties": {
            "b": {"type": "object", "properties": {"c": {"type": "object", "properties": {
            "d": {"type": "integer"}}}}}}}}});
        let out = output_schema(&s, 1, &mut lossy).unwrap_or_default();
        assert!(lossy);
        assert_eq!(
            out["properties"]["a"]["properties"]["b"]["properties"]["c"],
            json!({"type": "object"})
        );
    }
}
