//! Telling a grading list from a catalog manifest ([`crate::catalog::is_grading_list`]) in one
//! pass over a `registry.json`, from its text or from its parsed object, without building a tree.
//!
//! The public schema collection keeps a 443 KB grading list at its root, read on every `validate`
//! of it: made into a `serde_json` tree only to be asked four questions, it cost about 1 % of a
//! cold run (D188). The answer is now read as the document is parsed. Parsing still checks the
//! whole text exactly as a tree would (every string, number and escape goes through the same
//! `deserialize_any`), so a text that is not JSON is not a grading list here either.
//!
//! The reading follows the tree's: a key written twice counts by its last value (a parsed object
//! keeps the last one), a member that is present counts whatever its value.

use std::fmt;

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};

/// Whether a `registry.json` (its parsed object or its text, as any serde deserializer gives it) is
/// a grading list; `Err` when it is not a JSON object (or, from a text, not JSON).
pub(crate) fn is_grading_list<'de, D: Deserializer<'de>>(registry: D) -> Result<bool, D::Error> {
    registry.deserialize_map(Registry)
}

/// The top level: none of the manifest's members, and graded `schemas`.
struct Registry;

impl<'de> Visitor<'de> for Registry {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
        let mut manifest_member = false;
        let mut graded_entries = false;
        while let Some(key) = map.next_key::<Name>()? {
            match key.0 {
                Some("name" | "schemaSpec" | "shared") => {
                    manifest_member = true;
                    map.next_value::<Any>()?;
                }
                Some("schemas") => graded_entries = map.next_value::<Entries>()?.0,
                _ => {
                    map.next_value::<Any>()?;
                }
            }
        }
        Ok(!manifest_member && graded_entries)
    }
}

/// A member's name, kept only when it is one the reading asks about (no allocation for the rest).
struct Name(Option<&'static str>);

impl<'de> de::Deserialize<'de> for Name {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Name;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a member name")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Name, E> {
                const ASKED: [&str; 6] = [
                    "name",
                    "schemaSpec",
                    "shared",
                    "schemas",
                    "schemaPath",
                    "file",
                ];
                Ok(Name(ASKED.iter().find(|n| **n == s).copied()))
            }
        }
        d.deserialize_str(V)
    }
}

/// The visits of a value that is neither an array nor an object: each gives `$other`, a string
/// `$string`.
macro_rules! scalars {
    ($string:expr, $other:expr) => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok($other)
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok($other)
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok($other)
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok($other)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok($other)
        }
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Ok($string)
        }
    };
}

/// Any JSON value, read whole and dropped; whether it is a string.
struct Any(bool);

impl<'de> de::Deserialize<'de> for Any {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Any;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON value")
            }
            scalars!(Any(true), Any(false));
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Any, A::Error> {
                while seq.next_element::<Any>()?.is_some() {}
                Ok(Any(false))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Any, A::Error> {
                while map.next_entry::<Any, Any>()?.is_some() {}
                Ok(Any(false))
            }
        }
        d.deserialize_any(V)
    }
}

/// `schemas`: a non-empty array whose every entry is graded ([`Entry`]).
struct Entries(bool);

impl<'de> de::Deserialize<'de> for Entries {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Entries;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON value")
            }
            scalars!(Entries(false), Entries(false));
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Entries, A::Error> {
                let (mut all, mut any) = (true, false);
                while let Some(entry) = seq.next_element::<Entry>()? {
                    all &= entry.0;
                    any = true;
                }
                Ok(Entries(all && any))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Entries, A::Error> {
                while map.next_entry::<Any, Any>()?.is_some() {}
                Ok(Entries(false))
            }
        }
        d.deserialize_any(V)
    }
}

/// An entry of `schemas`: an object whose `schemaPath` is a string and that has no `file`.
struct Entry(bool);

impl<'de> de::Deserialize<'de> for Entry {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Entry;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON value")
            }
            scalars!(Entry(false), Entry(false));
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Entry, A::Error> {
                while seq.next_element::<Any>()?.is_some() {}
                Ok(Entry(false))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Entry, A::Error> {
                let (mut path_is_string, mut file) = (false, false);
                while let Some(key) = map.next_key::<Name>()? {
                    let value = map.next_value::<Any>()?;
                    match key.0 {
                        Some("schemaPath") => path_is_string = value.0,
                        Some("file") => file = true,
                        _ => {}
                    }
                }
                Ok(Entry(path_is_string && !file))
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Map, Value};

    use crate::catalog::{is_grading_list, is_grading_list_text};

    /// The rule as it reads on a parsed tree: the oracle both readings are held to.
    fn on_tree(text: &str) -> bool {
        let Ok(Value::Object(registry)) = serde_json::from_str::<Value>(text) else {
            return false;
        };
        let manifest_member = ["name", "schemaSpec", "shared"]
            .iter()
            .any(|k| registry.contains_key(*k));
        let graded = registry
            .get("schemas")
            .and_then(Value::as_array)
            .filter(|a| !a.is_empty())
            .is_some_and(|entries| {
                entries.iter().all(|e| {
                    e.get("schemaPath").is_some_and(Value::is_string) && e.get("file").is_none()
                })
            });
        !manifest_member && graded
    }

    fn parsed(text: &str) -> Option<Map<String, Value>> {
        match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(m)) => Some(m),
            _ => None,
        }
    }

    #[test]
    fn i46_a_grading_list_is_told_from_its_text_as_from_its_tree() {
        let cases = [
            (r#"{"schemas":[{"schemaPath":"a.mjs"}]}"#, true),
            (
                r#"{"schemas":[{"schemaPath":"a.mjs","score":{"x":[1,2.5,null,true]}}]}"#,
                true,
            ),
            (r#"{"schemas":[]}"#, false),
            (r#"{"schemas":{}}"#, false),
            (r#"{"schemas":"a"}"#, false),
            (r#"{"schemas":[{"schemaPath":"a.mjs","file":null}]}"#, false),
            (r#"{"schemas":[{"schemaPath":1}]}"#, false),
            (r#"{"schemas":[{"schemaPath":"a.mjs"},[]]}"#, false),
            (r#"{"schemas":[{"schemaPath":"a.mjs"},"b"]}"#, false),
            (r#"{"name":"x","schemas":[{"schemaPath":"a.mjs"}]}"#, false),
            (
                r#"{"shared":null,"schemas":[{"schemaPath":"a.mjs"}]}"#,
                false,
            ),
            (
                r#"{"schemaSpec":"4","schemas":[{"schemaPath":"a.mjs"}]}"#,
                false,
            ),
            // A key written twice counts by its last value.
            (
                r#"{"schemas":[{"schemaPath":"a.mjs"}],"schemas":[]}"#,
                false,
            ),
            (r#"{"schemas":[],"schemas":[{"schemaPath":"a.mjs"}]}"#, true),
            (r#"{"schemas":[{"schemaPath":1,"schemaPath":"a"}]}"#, true),
            (r#"{"schemas":[{"schemaPath":"a","schemaPath":2}]}"#, false),
            // Escaped names are the names they spell.
            (r#"{"schemas":[{"schema\u0050ath":"a.mjs"}]}"#, true),
            (
                r#"{"n\u0061me":"x","schemas":[{"schemaPath":"a.mjs"}]}"#,
                false,
            ),
            // Not JSON, or not an object: never a grading list.
            (r#"[{"schemaPath":"a.mjs"}]"#, false),
            (r#"{"schemas":[{"schemaPath":"a.mjs"}]} x"#, false),
            (r#"{"schemas":[{"schemaPath":"a.mjs"}],}"#, false),
            (
                r#"{"schemas":[{"schemaPath":"a.mjs"}],"x":"\ud800"}"#,
                false,
            ),
            (r#"{"schemas":[{"schemaPath":"a.mjs"}],"x":1e999}"#, false),
            ("", false),
            ("  {\"schemas\":[{\"schemaPath\":\"a\"}]}\n ", true),
        ];
        for (text, expected) in cases {
            assert_eq!(on_tree(text), expected, "the oracle on {text}");
            assert_eq!(is_grading_list_text(text), expected, "{text}");
            if let Some(m) = parsed(text) {
                assert_eq!(is_grading_list(&m), expected, "parsed {text}");
            }
        }
    }

    #[test]
    fn i46_random_registries_read_the_same_from_text_and_tree() {
        // Small registries made of the members and values the rule asks about, in every order,
        // some repeated: the text reading, the tree reading and the oracle agree on each.
        let keys = ["name", "schemas", "schemas", "x", "shared", "schemaSpec"];
        let entries = [
            r#"{"schemaPath":"a"}"#,
            r#"{"schemaPath":"a","file":"b"}"#,
            r#"{"schemaPath":3}"#,
            r#"{"schemaPath":"a","schemaPath":[]}"#,
            r#"{"x":{"schemaPath":"a"}}"#,
            r#"[]"#,
            r#""s""#,
        ];
        let mut next = crate::test_rng::below(0x2545_f491);
        let mut graded = 0;
        for _ in 0..2_000 {
            let members: Vec<String> = (0..next(4))
                .map(|_| {
                    let key = keys[next(keys.len())];
                    let value = if key == "schemas" && next(4) > 0 {
                        let list: Vec<&str> =
                            (0..next(4)).map(|_| entries[next(entries.len())]).collect();
                        format!("[{}]", list.join(","))
                    } else {
                        entries[next(entries.len())].to_string()
                    };
                    format!("\"{key}\":{value}")
                })
                .collect();
            let text = format!("{{{}}}", members.join(","));
            let expected = on_tree(&text);
            graded += usize::from(expected);
            assert_eq!(is_grading_list_text(&text), expected, "{text}");
            let m = parsed(&text).expect("an object");
            assert_eq!(is_grading_list(&m), expected, "parsed {text}");
        }
        assert!(
            graded > 5,
            "too few grading lists among the samples: {graded}"
        );
    }
}
