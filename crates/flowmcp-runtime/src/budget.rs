//! Fitting a tool's data into a size budget without leaving its output schema (issue #44, D140).
//!
//! A model reads a tool result through a finite context, so a server may bound what one result
//! costs. [`fit`] makes a copy of the data that serializes to at most a given number of bytes by
//! shortening arrays (their first elements are kept) and cutting long strings (their start is
//! kept, followed by `…`), never by dropping object members: a member a schema requires stays,
//! and so does the data's shape. What the schema constrains is left as it asks:
//!
//! - an array keeps at least its `minItems` elements (and at least one, so its shape shows);
//! - a string with `enum`, `const`, `pattern` or `format` is never cut, and any other keeps at
//!   least its `minLength` characters (and at least [`MIN_TEXT`]);
//! - everything else in the data is unchanged.
//!
//! One scale factor is applied to every array and string at once and is searched by bisection:
//! the result is the largest uniform cut that fits, so a large array and a long text of the same
//! result are both cut in proportion. Each cut is recorded ([`Cut`]) with the counts before and
//! after. When even the smallest cut does not fit (many object members, many short strings), the
//! data is returned cut as far as it goes and [`Fitted::fits`] is `false`: the caller decides.

use std::io::Write;

use serde::Serialize;
use serde_json::{Map, Value};

/// The fewest characters a cut string keeps.
pub const MIN_TEXT: usize = 64;

/// How many bytes of compact JSON a token is reckoned at when a budget is given in tokens: a
/// conservative figure (JSON text is denser in tokens than prose), so a token budget is not
/// exceeded by common tokenizers.
pub const BYTES_PER_TOKEN: usize = 3;

/// At most this many cuts are listed ([`Fitted::cuts`]); the rest are counted
/// ([`Fitted::more_cuts`]).
const MAX_LISTED_CUTS: usize = 20;

/// Bisection steps for the scale factor: 2^-12 of precision is far below one element.
const STEPS: usize = 12;

/// One place where [`fit`] shortened the data.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Cut {
    /// Where, as a JSON pointer into the data (`""` is the data itself).
    pub path: String,
    /// What was shortened.
    pub kind: CutKind,
    /// Elements (of an array) or characters (of a string) kept.
    pub kept: usize,
    /// Elements or characters the data had.
    pub total: usize,
}

/// What a [`Cut`] shortened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum CutKind {
    /// An array: its first `kept` elements remain.
    Array,
    /// A string: its first `kept` characters remain, followed by `…`.
    Text,
}

/// The data of a result fitted to a budget.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Fitted {
    /// The data, cut where needed.
    pub data: Value,
    /// Whether `data` is within the budget.
    pub fits: bool,
    /// The size of the data before, in bytes of compact JSON.
    pub original_bytes: usize,
    /// The size of `data`, in bytes of compact JSON.
    pub bytes: usize,
    /// The cuts made, in document order (at most twenty).
    pub cuts: Vec<Cut>,
    /// How many further cuts were made and not listed.
    pub more_cuts: usize,
}

impl Fitted {
    /// Whether anything was cut.
    pub fn is_cut(&self) -> bool {
        !self.cuts.is_empty()
    }

    /// The cuts by place: cuts at the same place of different elements (`/items/0/body`,
    /// `/items/1/body`) are one group, `/items/*/body`, told by its first cut and a count.
    pub fn groups(&self) -> Vec<CutGroup> {
        let mut groups: Vec<CutGroup> = Vec::new();
        for c in &self.cuts {
            let path = c
                .path
                .split('/')
                .map(|seg| {
                    if !seg.is_empty() && seg.bytes().all(|b| b.is_ascii_digit()) {
                        "*"
                    } else {
                        seg
                    }
                })
                .collect::<Vec<_>>()
                .join("/");
            match groups
                .iter_mut()
                .find(|g| g.path == path && g.kind == c.kind)
            {
                Some(g) => g.count += 1,
                None => groups.push(CutGroup {
                    path,
                    kind: c.kind,
                    count: 1,
                    kept: c.kept,
                    total: c.total,
                }),
            }
        }
        groups
    }

    /// The cuts in words, for a note a person or a model reads: each group of
    /// [`Fitted::groups`] (`/items/*/body: 17 cuts, e.g. 64 of 400 characters`), at most five,
    /// then how many more cuts there were.
    pub fn describe(&self) -> String {
        let groups = self.groups();
        let shown = groups.len().min(5);
        let mut parts: Vec<String> = groups[..shown]
            .iter()
            .map(|g| {
                let unit = match g.kind {
                    CutKind::Array => "elements",
                    CutKind::Text => "characters",
                };
                let at = if g.path.is_empty() {
                    "/"
                } else {
                    g.path.as_str()
                };
                if g.count == 1 {
                    format!("{at}: {} of {} {unit}", g.kept, g.total)
                } else {
                    format!(
                        "{at}: {} cuts, e.g. {} of {} {unit}",
                        g.count, g.kept, g.total
                    )
                }
            })
            .collect();
        let hidden: usize = groups[shown..].iter().map(|g| g.count).sum::<usize>() + self.more_cuts;
        if hidden > 0 {
            parts.push(format!("{hidden} more cuts"));
        }
        parts.join("; ")
    }
}

/// Cuts at one place of the data ([`Fitted::groups`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CutGroup {
    /// The place, a JSON pointer whose array indexes are `*`.
    pub path: String,
    /// What was shortened.
    pub kind: CutKind,
    /// How many cuts were made there (among those listed in [`Fitted::cuts`]).
    pub count: usize,
    /// What the first of them kept (elements or characters).
    pub kept: usize,
    /// What the first of them had.
    pub total: usize,
}

/// The size of `value` as compact JSON, in bytes (without building the text).
pub fn json_size<T: Serialize + ?Sized>(value: &T) -> usize {
    struct Count(usize);
    impl Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // Only a value JSON cannot hold (a map with non-string keys) fails: it fits no budget.
    match serde_json::to_writer(&mut count, value) {
        Ok(()) => count.0,
        Err(_) => usize::MAX,
    }
}

/// `data` fitted into `max_bytes` of compact JSON, cut only where `schema` (the tool's declared
/// output schema, when it has one) allows. Data that fits is returned unchanged.
pub fn fit(data: &Value, schema: Option<&Value>, max_bytes: usize) -> Fitted {
    let original_bytes = json_size(data);
    if original_bytes <= max_bytes {
        return Fitted {
            data: data.clone(),
            fits: true,
            original_bytes,
            bytes: original_bytes,
            cuts: Vec::new(),
            more_cuts: 0,
        };
    }
    // The smallest cut first: when even it does not fit, nothing smaller exists.
    let attempt = |factor: f64| {
        let mut cuts = Cuts::default();
        let value = shrink(data, schema, factor, &mut String::new(), &mut cuts);
        let bytes = json_size(&value);
        (value, bytes, cuts)
    };
    let (mut best, mut best_bytes, mut best_cuts) = attempt(0.0);
    if best_bytes > max_bytes {
        return Fitted {
            data: best,
            fits: false,
            original_bytes,
            bytes: best_bytes,
            cuts: best_cuts.listed,
            more_cuts: best_cuts.more,
        };
    }
    let (mut lo, mut hi) = (0.0_f64, 1.0_f64);
    for _ in 0..STEPS {
        let mid = (lo + hi) / 2.0;
        let (value, bytes, cuts) = attempt(mid);
        if bytes <= max_bytes {
            (best, best_bytes, best_cuts) = (value, bytes, cuts);
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Fitted {
        data: best,
        fits: true,
        original_bytes,
        bytes: best_bytes,
        cuts: best_cuts.listed,
        more_cuts: best_cuts.more,
    }
}

#[derive(Default)]
struct Cuts {
    listed: Vec<Cut>,
    more: usize,
}

impl Cuts {
    fn push(&mut self, cut: Cut) {
        if self.listed.len() < MAX_LISTED_CUTS {
            self.listed.push(cut);
        } else {
            self.more += 1;
        }
    }
}

/// The schema of member `key` of an object described by `schema`.
fn member_schema<'s>(schema: Option<&'s Value>, key: &str) -> Option<&'s Value> {
    schema?.get("properties")?.get(key)
}

/// The schema of an array's elements.
fn items_schema(schema: Option<&Value>) -> Option<&Value> {
    schema?.get("items").filter(|s| s.is_object())
}

/// A non-negative integer keyword of `schema` (`minItems`, `minLength`).
fn bound(schema: Option<&Value>, keyword: &str) -> usize {
    schema
        .and_then(|s| s.get(keyword))
        .and_then(Value::as_u64)
        .map_or(0, |n| usize::try_from(n).unwrap_or(usize::MAX))
}

/// Whether a string under `schema` may be cut: not when its value is constrained beyond length.
fn text_may_be_cut(schema: Option<&Value>) -> bool {
    schema.is_none_or(|s| {
        !["enum", "const", "pattern", "format"]
            .iter()
            .any(|k| s.get(*k).is_some())
    })
}

/// `count` scaled by `factor`, at least `floor` and at most `count`.
fn scaled(count: usize, factor: f64, floor: usize) -> usize {
    // The product is at most `count`, so the conversion back cannot overflow.
    let n = (count as f64 * factor).floor() as usize;
    n.max(floor).min(count)
}

fn shrink(
    value: &Value,
    schema: Option<&Value>,
    factor: f64,
    path: &mut String,
    cuts: &mut Cuts,
) -> Value {
    match value {
        Value::Array(items) => {
            let total = items.len();
            let keep = if total == 0 {
                0
            } else {
                scaled(total, factor, bound(schema, "minItems").max(1))
            };
            if keep < total {
                cuts.push(Cut {
                    path: path.clone(),
                    kind: CutKind::Array,
                    kept: keep,
                    total,
                });
            }
            let inner = items_schema(schema);
            let len = path.len();
            let out = items[..keep]
                .iter()
                .enumerate()
                .map(|(i, item)| {
                    path.push('/');
                    path.push_str(&i.to_string());
                    let v = shrink(item, inner, factor, path, cuts);
                    path.truncate(len);
                    v
                })
                .collect();
            Value::Array(out)
        }
        Value::Object(members) => {
            let len = path.len();
            let out: Map<String, Value> = members
                .iter()
                .map(|(k, v)| {
                    path.push('/');
                    crate::output::push_escaped(path, k);
                    let v = shrink(v, member_schema(schema, k), factor, path, cuts);
                    path.truncate(len);
                    (k.clone(), v)
                })
                .collect();
            Value::Object(out)
        }
        Value::String(text) if text.len() > MIN_TEXT && text_may_be_cut(schema) => {
            let total = text.chars().count();
            let keep = scaled(total, factor, bound(schema, "minLength").max(MIN_TEXT));
            if keep >= total {
                return value.clone();
            }
            cuts.push(Cut {
                path: path.clone(),
                kind: CutKind::Text,
                kept: keep,
                total,
            });
            let mut cut: String = text.chars().take(keep).collect();
            cut.push('…');
            Value::String(cut)
        }
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn big() -> Value {
        let items: Vec<Value> = (0..500)
            .map(|i| json!({"id": i, "name": format!("item number {i}"), "text": "x".repeat(300)}))
            .collect();
        json!({"count": 500, "items": items, "next_cursor": "abc"})
    }

    #[test]
    fn i44_data_within_budget_is_unchanged() {
        let d = big();
        let f = fit(&d, None, 10_000_000);
        assert!(f.fits && !f.is_cut());
        assert_eq!(f.data, d);
        assert_eq!(
            f.bytes,
            serde_json::to_vec(&d).map(|v| v.len()).unwrap_or(0)
        );
    }

    #[test]
    fn i44_large_data_is_cut_to_the_budget_and_says_where() {
        let d = big();
        let f = fit(&d, None, 20_000);
        assert!(f.fits, "{f:?}");
        assert!(f.bytes <= 20_000 && f.bytes == json_size(&f.data));
        // The largest uniform cut that fits: not far below the budget.
        assert!(f.bytes > 10_000, "{}", f.bytes);
        assert_eq!(f.original_bytes, json_size(&d));
        let first = &f.cuts[0];
        assert_eq!(
            (first.path.as_str(), first.kind, first.total),
            ("/items", CutKind::Array, 500)
        );
        let kept = f.data["items"].as_array().map_or(0, Vec::len);
        assert_eq!(first.kept, kept);
        // Members are never dropped; the kept elements are the first ones.
        assert_eq!(f.data["next_cursor"], "abc");
        assert_eq!(f.data["items"][0]["id"], 0);
        // Long strings are cut in proportion, marked with an ellipsis.
        let text = f.data["items"][0]["text"].as_str().unwrap_or_default();
        assert!(text.ends_with('…') && text.chars().count() <= 301);
        assert!(
            f.cuts
                .iter()
                .any(|c| c.kind == CutKind::Text && c.path == "/items/0/text")
        );
    }

    #[test]
    fn i44_cuts_respect_the_output_schema() {
        let d = json!({"codes": vec!["AAAA"; 50], "list": (0..100).collect::<Vec<_>>(),
                       "url": format!("https://example.com/{}", "p".repeat(400)),
                       "note": "n".repeat(400)});
        let schema = json!({"type": "object", "properties": {
            "codes": {"type": "array", "items": {"type": "string", "enum": ["AAAA"]}},
            "list": {"type": "array", "minItems": 40, "items": {"type": "integer"}},
            "url": {"type": "string", "format": "uri"},
            "note": {"type": "string", "minLength": 100}}});
        let f = fit(&d, Some(&schema), 700);
        assert!(f.fits, "{f:?}");
        assert_eq!(f.data["list"].as_array().map(Vec::len), Some(40));
        assert_eq!(f.data["url"], d["url"]);
        let note = f.data["note"].as_str().unwrap_or_default();
        assert_eq!(note.chars().count(), 101);
        assert!(crate::output::check_output(&schema, &f.data).is_empty());
    }

    #[test]
    fn i44_data_that_cannot_fit_says_so() {
        let many: Map<String, Value> = (0..200).map(|i| (format!("k{i}"), json!(i))).collect();
        let f = fit(&Value::Object(many), None, 100);
        assert!(!f.fits && f.bytes > 100 && !f.is_cut());
    }

    #[test]
    fn i44_cuts_at_the_same_place_of_many_elements_are_told_once() {
        let f = fit(&big(), None, 20_000);
        let told = f.describe();
        assert!(
            told.starts_with("/items: ") && told.contains("; /items/*/text: "),
            "{told}"
        );
        assert!(!told.contains("/items/0/"), "{told}");
    }

    #[test]
    fn i44_pointer_segments_are_escaped() {
        let d = json!({"a/b~c": vec!["x"; 100]});
        let f = fit(&d, None, 40);
        assert_eq!(f.cuts[0].path, "/a~1b~0c");
    }
}
