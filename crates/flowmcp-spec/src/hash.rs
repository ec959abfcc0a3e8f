//! Canonical JSON (RFC 8785 / JCS) and `schemaHash`.
//!
//! [`canonical_json`] serialises a [`Value`] the way RFC 8785 (the JSON Canonicalization
//! Scheme) prescribes:
//!
//! * object members sorted by their keys compared as UTF-16 code unit sequences;
//! * no whitespace;
//! * strings escaped as ECMAScript `JSON.stringify` does: `\"`, `\\`, `\b`, `\f`, `\n`,
//!   `\r`, `\t`, `\u00xx` (lowercase hex) for the other control characters, everything
//!   else as literal UTF-8;
//! * numbers printed as ECMAScript `Number.prototype.toString` prints them (via
//!   `ryu-js`): `1`, `0.5`, `1e+21`, `1e-7`; `-0` prints `0`. Integers beyond 2^53 are
//!   first rounded to the nearest double, as a JavaScript engine would have stored them.
//!
//! [`schema_hash`] is the `schemaHash`: the first 8 lowercase hex digits of SHA-256 over the
//! canonical JSON of `main` without its `schemaHash` key. The specification asks for "canonical
//! JSON" without naming a scheme; RFC 8785 is the one used here. The field is optional (no example
//! in the specification has it).

use serde_json::{Map, Number, Value};
use sha2::{Digest, Sha256};

/// The RFC 8785 canonical serialisation of `value`.
pub fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(value, &mut out);
    out
}

/// Appends the RFC 8785 canonical serialisation of `value` to `out`.
pub(crate) fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(n) => write_number(n, out),
        Value::String(s) => write_string(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => write_object(map, out),
    }
}

fn write_object(map: &Map<String, Value>, out: &mut String) {
    let mut members: Vec<(&String, &Value)> = map.iter().collect();
    members.sort_by(|a, b| a.0.encode_utf16().cmp(b.0.encode_utf16()));
    out.push('{');
    for (i, (key, value)) in members.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_string(key, out);
        out.push(':');
        write_canonical(value, out);
    }
    out.push('}');
}

/// Prints a number as ECMAScript `Number.prototype.toString` does.
fn write_number(n: &Number, out: &mut String) {
    // Without serde_json's `arbitrary_precision`, `as_f64` always succeeds; a JSON number
    // that does not fit a double cannot occur. Integers are rounded to the nearest double
    // exactly as a JavaScript engine would store them.
    let f = n.as_f64().unwrap_or(0.0);
    if f.is_finite() {
        out.push_str(ryu_js::Buffer::new().format_finite(f));
    } else {
        // Unreachable for serde_json values; JSON.stringify prints non-finite as null.
        out.push_str("null");
    }
}

/// Writes a string literal with JCS / `JSON.stringify` escaping.
fn write_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{08}' => out.push_str("\\b"),
            '\u{0C}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if u32::from(c) < 0x20 => {
                out.push_str(&format!("\\u{:04x}", u32::from(c)));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Lowercase hex SHA-256 of `bytes` (64 digits).
pub fn sha256_hex(bytes: impl AsRef<[u8]>) -> String {
    let digest = Sha256::digest(bytes.as_ref());
    let mut hex = String::with_capacity(64);
    for byte in digest {
        hex.push_str(&format!("{byte:02x}"));
    }
    hex
}

/// Lowercase hex SHA-256 of the canonical JSON of `value` (the preload cache's keys).
pub fn canonical_sha256(value: &Value) -> String {
    sha256_hex(canonical_json(value))
}

/// The `schemaHash` of a schema `main`: the first 8 lowercase hex digits of SHA-256 over
/// the canonical JSON of `main` without its top-level `schemaHash` key. A `main` that is
/// not an object is hashed as it is.
pub fn schema_hash(main: &Value) -> String {
    let digest = match main {
        Value::Object(map) if map.contains_key("schemaHash") => {
            let mut without = map.clone();
            without.shift_remove("schemaHash");
            canonical_sha256(&Value::Object(without))
        }
        other => canonical_sha256(other),
    };
    digest[..8].to_string()
}

/// `JSON.stringify(value)` as an ECMAScript engine prints it: no whitespace; object members in
/// property order — keys that are array indices (`"0"` … `"4294967294"`) first in ascending
/// order, then the others in insertion order —; strings and numbers as in [`canonical_json`].
pub fn js_stringify(value: &Value) -> String {
    let mut out = String::new();
    write_js(value, &mut out);
    out
}

fn write_js(value: &Value, out: &mut String) {
    match value {
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_js(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let index = |k: &str| {
                (k == "0" || !k.starts_with('0'))
                    .then(|| k.parse::<u32>().ok())
                    .flatten()
                    .filter(|n| *n < u32::MAX)
            };
            let mut indices: Vec<(u32, &String, &Value)> = map
                .iter()
                .filter_map(|(k, v)| index(k).map(|n| (n, k, v)))
                .collect();
            indices.sort_by_key(|(n, _, _)| *n);
            let members = indices
                .into_iter()
                .map(|(_, k, v)| (k, v))
                .chain(map.iter().filter(|(k, _)| index(k).is_none()));
            out.push('{');
            for (i, (key, v)) in members.enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(key, out);
                out.push(':');
                write_js(v, out);
            }
            out.push('}');
        }
        other => write_canonical(other, out),
    }
}

/// The integrity hash of the tool `tool` of a schema's `main` (as the module exports it), as the
/// agents chapter defines it: `sha256:` and the lowercase hex SHA-256 of
/// `JSON.stringify({ namespace, version, tool: { name, method, path, parameters, output },
/// sharedListRefs })` — `output` only when the tool has one, `sharedListRefs` the `{ ref,
/// version }` of each entry of `main.sharedLists`. Handler code is not part of it. `None` when
/// `main` has no such tool.
pub fn tool_hash(main: &Value, tool: &str) -> Option<String> {
    let def = main
        .get("tools")
        .or_else(|| main.get("routes"))
        .and_then(|t| t.get(tool))?;
    let field = |v: Option<&Value>| v.cloned().unwrap_or(Value::Null);
    let mut t = Map::new();
    t.insert("name".into(), Value::String(tool.to_string()));
    t.insert("method".into(), field(def.get("method")));
    t.insert("path".into(), field(def.get("path")));
    t.insert("parameters".into(), field(def.get("parameters")));
    if let Some(output) = def.get("output") {
        t.insert("output".into(), output.clone());
    }
    let refs: Vec<Value> = main
        .get("sharedLists")
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .map(|e| {
                    let mut r = Map::new();
                    r.insert("ref".into(), field(e.get("ref")));
                    r.insert("version".into(), field(e.get("version")));
                    Value::Object(r)
                })
                .collect()
        })
        .unwrap_or_default();
    let mut o = Map::new();
    o.insert("namespace".into(), field(main.get("namespace")));
    o.insert("version".into(), field(main.get("version")));
    o.insert("tool".into(), Value::Object(t));
    o.insert("sharedListRefs".into(), Value::Array(refs));
    Some(format!(
        "sha256:{}",
        sha256_hex(js_stringify(&Value::Object(o)))
    ))
}

/// The integrity hash of an agent from the hashes of its external tools, as the agents chapter
/// defines it: `sha256:` and the SHA-256 of `JSON.stringify` of `[{ id, hash }, …]`, the IDs sorted
/// as JavaScript's default sort orders strings (by UTF-16 code units).
pub fn agent_hash(tools: &[(String, String)]) -> String {
    let mut sorted: Vec<&(String, String)> = tools.iter().collect();
    sorted.sort_by(|a, b| a.0.encode_utf16().cmp(b.0.encode_utf16()));
    let list: Vec<Value> = sorted
        .into_iter()
        .map(|(id, hash)| {
            let mut m = Map::new();
            m.insert("id".into(), Value::String(id.clone()));
            m.insert("hash".into(), Value::String(hash.clone()));
            Value::Object(m)
        })
        .collect();
    format!("sha256:{}", sha256_hex(js_stringify(&Value::Array(list))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn js_stringify_orders_index_keys_first_and_keeps_the_rest() {
        let v: Value =
            serde_json::from_str(r#"{"b": 1, "10": true, "a": [0.5, 1e21], "2": null, "01": "x"}"#)
                .unwrap_or_default();
        assert_eq!(
            js_stringify(&v),
            r#"{"2":null,"10":true,"b":1,"a":[0.5,1e+21],"01":"x"}"#
        );
    }

    #[test]
    fn tool_and_agent_hashes_follow_the_chapter() {
        let main = json!({
            "namespace": "demo", "version": "4.2.0", "root": "https://x",
            "sharedLists": [ { "ref": "colors", "version": "1.0.0", "filter": { "key": "a", "exists": true } } ],
            "tools": { "ping": { "method": "GET", "path": "/ping", "description": "d", "parameters": [] } }
        });
        let text = r#"{"namespace":"demo","version":"4.2.0","tool":{"name":"ping","method":"GET","path":"/ping","parameters":[]},"sharedListRefs":[{"ref":"colors","version":"1.0.0"}]}"#;
        let expected = format!("sha256:{}", sha256_hex(text));
        assert_eq!(tool_hash(&main, "ping"), Some(expected.clone()));
        assert_eq!(tool_hash(&main, "pong"), None);
        // The description is not part of it; the path is.
        let mut other = main.clone();
        other["tools"]["ping"]["description"] = json!("changed");
        assert_eq!(tool_hash(&other, "ping"), Some(expected.clone()));
        other["tools"]["ping"]["path"] = json!("/v2/ping");
        assert_ne!(tool_hash(&other, "ping"), Some(expected.clone()));
        // Sorted by UTF-16 code units: "Z" < "a".
        let a = agent_hash(&[
            ("a/tool/x".into(), "h1".into()),
            ("Z/tool/y".into(), "h2".into()),
        ]);
        let list = r#"[{"id":"Z/tool/y","hash":"h2"},{"id":"a/tool/x","hash":"h1"}]"#;
        assert_eq!(a, format!("sha256:{}", sha256_hex(list)));
    }

    fn num(text: &str) -> String {
        let v: Value = serde_json::from_str(text).unwrap();
        canonical_json(&v)
    }

    #[test]
    fn literals_and_containers() {
        assert_eq!(canonical_json(&json!(null)), "null");
        assert_eq!(canonical_json(&json!(true)), "true");
        assert_eq!(canonical_json(&json!(false)), "false");
        assert_eq!(canonical_json(&json!([])), "[]");
        assert_eq!(canonical_json(&json!({})), "{}");
        assert_eq!(
            canonical_json(&json!([1, [2, {"b": null, "a": []}], "x"])),
            r#"[1,[2,{"a":[],"b":null}],"x"]"#
        );
    }

    #[test]
    fn keys_sorted_by_utf16_code_units() {
        // RFC 8785 §3.2.3 example: the key order depends on UTF-16, not on UTF-8 or chars.
        let v: Value = serde_json::from_str(
            r#"{"\u20ac":"Euro Sign","\r":"Carriage Return","\ufb33":"Hebrew Letter Dalet With Dagesh","1":"One","\ud83d\ude00":"Emoji: Grinning Face","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis"}"#,
        )
        .unwrap();
        let keys: Vec<String> = match serde_json::from_str::<Value>(&canonical_json(&v)).unwrap() {
            Value::Object(m) => m.keys().cloned().collect(),
            _ => unreachable!(),
        };
        assert_eq!(
            keys,
            vec![
                "\r",
                "1",
                "\u{80}",
                "\u{f6}",
                "\u{20ac}",
                "\u{1f600}",
                "\u{fb33}"
            ]
        );
        // By chars (UTF-8 byte order) the emoji would come last; in UTF-16 it sorts before
        // U+FB33 because its high surrogate 0xD83D < 0xFB33.
    }

    #[test]
    fn string_escaping() {
        assert_eq!(
            canonical_json(&json!("\"\\\u{08}\u{0C}\n\r\t")),
            r#""\"\\\b\f\n\r\t""#
        );
        assert_eq!(canonical_json(&json!("\u{0}\u{1f}")), r#""\u0000\u001f""#);
        assert_eq!(canonical_json(&json!("\u{7f}é€😀/<>")), "\"\u{7f}é€😀/<>\"");
        // RFC 8785 §3.2.2.2 example string.
        let v: Value =
            serde_json::from_str(r#""\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/""#).unwrap();
        assert_eq!(canonical_json(&v), "\"€$\\u000f\\nA'B\\\"\\\\\\\\\\\"/\"");
    }

    #[test]
    fn numbers_print_as_ecmascript() {
        assert_eq!(num("1e21"), "1e+21");
        assert_eq!(num("1e-7"), "1e-7");
        assert_eq!(num("0.000001"), "0.000001");
        assert_eq!(num("123456789012345680000"), "123456789012345680000");
        assert_eq!(num("-0"), "0");
        assert_eq!(num("-0.0"), "0");
        assert_eq!(num("1.0"), "1");
        assert_eq!(num("100"), "100");
        assert_eq!(num("1e20"), "100000000000000000000");
        assert_eq!(num("4.50"), "4.5");
        assert_eq!(num("-1e-7"), "-1e-7");
        assert_eq!(num("0.1"), "0.1");
        assert_eq!(num("9007199254740993"), "9007199254740992");
        assert_eq!(num("18446744073709551615"), "18446744073709552000");
        assert_eq!(num("-9223372036854775808"), "-9223372036854776000");
        assert_eq!(num("5e-324"), "5e-324");
        assert_eq!(num("1.7976931348623157e308"), "1.7976931348623157e+308");
        // RFC 8785 Appendix B samples.
        assert_eq!(num("333333333.3333333"), "333333333.3333333");
        assert_eq!(num("1e+23"), "1e+23");
        assert_eq!(num("295147905179352830000"), "295147905179352830000");
        assert_eq!(num("4.294967295e9"), "4294967295");
        assert_eq!(num("9007199254740992"), "9007199254740992");
        assert_eq!(num("0.1e-6"), "1e-7");
        assert_eq!(canonical_json(&json!(0.1 + 0.2)), "0.30000000000000004");
    }

    #[test]
    fn rfc8785_section_3_2_2_example() {
        let input = r#"{
          "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
          "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
          "literals": [null, true, false]
        }"#;
        let v: Value = serde_json::from_str(input).unwrap();
        assert_eq!(
            canonical_json(&v),
            "{\"literals\":[null,true,false],\"numbers\":[333333333.3333333,1e+30,4.5,0.002,1e-27],\"string\":\"€$\\u000f\\nA'B\\\"\\\\\\\\\\\"/\"}"
        );
    }

    #[test]
    fn sha256_vectors() {
        // FIPS 180-2 test vectors.
        assert_eq!(
            sha256_hex(""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn schema_hash_ignores_schema_hash_key() {
        let main = json!({
            "namespace": "demo",
            "version": "4.0.0",
            "tools": {},
            "schemaHash": "deadbeef"
        });
        // Canonical text of main without schemaHash, hashed independently with
        // python3: hashlib.sha256(b'{"namespace":"demo","tools":{},"version":"4.0.0"}')
        let canonical = r#"{"namespace":"demo","tools":{},"version":"4.0.0"}"#;
        let mut without = main.clone();
        without.as_object_mut().unwrap().remove("schemaHash");
        assert_eq!(canonical_json(&without), canonical);
        assert_eq!(schema_hash(&main), "07b03d03");
        assert_eq!(schema_hash(&without), "07b03d03");
        assert_eq!(canonical_sha256(&without), sha256_hex(canonical));
        // The hash does not depend on key order.
        let reordered: Value = serde_json::from_str(
            r#"{"tools":{},"schemaHash":"x","version":"4.0.0","namespace":"demo"}"#,
        )
        .unwrap();
        assert_eq!(schema_hash(&reordered), "07b03d03");
    }

    #[test]
    fn schema_hash_of_a_realistic_main() {
        let main = json!({
            "namespace": "etherscan",
            "name": "SmartContractExplorer",
            "description": "Explore verified smart contracts — ABI & source",
            "version": "4.2.0",
            "schemaVersion": "1.0.0",
            "schemaHash": "00000000",
            "root": "https://api.etherscan.io",
            "tools": {
                "getContractAbi": {
                    "method": "GET",
                    "path": "/api",
                    "parameters": [
                        {"position": {"key": "address", "value": "{{USER_PARAM}}", "location": "query"},
                         "z": {"primitive": "string()", "options": ["min(42)", "max(42)"]}}
                    ],
                    "preload": {"enabled": true, "ttl": 86400.0, "ratio": 0.5}
                }
            }
        });
        // python3 -c 'import hashlib; print(hashlib.sha256(open("c.json","rb").read()).hexdigest()[:8])'
        let canonical = "{\"description\":\"Explore verified smart contracts — ABI & source\",\"name\":\"SmartContractExplorer\",\"namespace\":\"etherscan\",\"root\":\"https://api.etherscan.io\",\"schemaVersion\":\"1.0.0\",\"tools\":{\"getContractAbi\":{\"method\":\"GET\",\"parameters\":[{\"position\":{\"key\":\"address\",\"location\":\"query\",\"value\":\"{{USER_PARAM}}\"},\"z\":{\"options\":[\"min(42)\",\"max(42)\"],\"primitive\":\"string()\"}}],\"path\":\"/api\",\"preload\":{\"enabled\":true,\"ratio\":0.5,\"ttl\":86400}}},\"version\":\"4.2.0\"}";
        let mut without = main.clone();
        without.as_object_mut().unwrap().remove("schemaHash");
        assert_eq!(canonical_json(&without), canonical);
        assert_eq!(schema_hash(&main), "d0cced88");
    }

    #[test]
    fn schema_hash_of_non_objects() {
        // sha256("null") = 74234e98afe7498fb5daf1f36ac2d78acc339464f950703b8c019892f982b90b
        assert_eq!(schema_hash(&Value::Null), "74234e98");
        assert_eq!(schema_hash(&json!([])).len(), 8);
    }
}
