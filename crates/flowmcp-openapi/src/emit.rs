//! Writing a drafted schema as a JavaScript module: plain data, with `// REVIEW:` lines.

use serde_json::Value;

use crate::ReviewKind;

/// A JavaScript string literal in single quotes.
pub(crate) fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('\'');
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// An object key: bare when it is an identifier, else quoted.
pub(crate) fn key(text: &str) -> String {
    let mut chars = text.chars();
    let ident = match chars.next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' || c == '$' => {
            chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
        }
        _ => false,
    };
    if ident { text.to_string() } else { quote(text) }
}

/// A JSON value as a JavaScript literal: on one line when short, else one member a line,
/// indented by `indent` levels of four spaces.
pub(crate) fn literal(value: &Value, indent: usize) -> String {
    let flat = flat(value);
    if flat.len() + indent * 4 <= 110 {
        return flat;
    }
    let pad = "    ".repeat(indent + 1);
    let end = "    ".repeat(indent);
    match value {
        Value::Object(map) if !map.is_empty() => {
            let members: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{pad}{}: {}", key(k), literal(v, indent + 1)))
                .collect();
            format!("{{\n{}\n{end}}}", members.join(",\n"))
        }
        Value::Array(items) if !items.is_empty() => {
            let members: Vec<String> = items
                .iter()
                .map(|v| format!("{pad}{}", literal(v, indent + 1)))
                .collect();
            format!("[\n{}\n{end}]", members.join(",\n"))
        }
        _ => flat,
    }
}

fn flat(value: &Value) -> String {
    match value {
        Value::String(s) => quote(s),
        Value::Object(map) if map.is_empty() => "{}".to_string(),
        Value::Object(map) => {
            let members: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{}: {}", key(k), flat(v)))
                .collect();
            format!("{{ {} }}", members.join(", "))
        }
        Value::Array(items) if items.is_empty() => "[]".to_string(),
        Value::Array(items) => {
            let members: Vec<String> = items.iter().map(flat).collect();
            format!("[ {} ]", members.join(", "))
        }
        other => other.to_string(),
    }
}

/// `// REVIEW:` lines at `indent`, one per note.
pub(crate) fn reviews(out: &mut String, notes: &[(ReviewKind, String)], indent: usize) {
    let pad = "    ".repeat(indent);
    for (kind, text) in notes {
        out.push_str(&format!("{pad}// REVIEW: [{}] {text}\n", kind.as_str()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn i41_strings_and_keys_are_javascript() {
        assert_eq!(quote("it's\n\\"), r"'it\'s\n\\'");
        assert_eq!(key("X-Api-Key"), "'X-Api-Key'");
        assert_eq!(key("limit"), "limit");
        assert_eq!(
            literal(&json!({"a": [1, "b"], "c d": null}), 0),
            "{ a: [ 1, 'b' ], 'c d': null }"
        );
    }
}
