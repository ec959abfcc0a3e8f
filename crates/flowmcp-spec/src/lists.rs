//! Shared lists (chapter 03), as data: the list model, references and their filters, a registry of
//! lists with resolution and enum interpolation. Reading lists from disk, the LST rules and the
//! discovery of a file's `_lists/` are in `flowmcp-validate` (`lists`); the reverse index is the
//! catalog's.
//!
//! # API
//!
//! - [`SharedList`]: one list, read leniently from the JSON of its `list` export
//!   ([`SharedList::from_json`]); whatever is malformed is left out here and reported by the LST rules.
//! - [`ListRegistry`]: a set of lists ([`ListRegistry::new`], and `flowmcp_validate::lists::load_dir`
//!   for a `_lists/` directory): look-up by name ([`ListRegistry::get`]),
//!   [`ListRegistry::field_values`], resolution of a schema's `main.sharedLists`
//!   ([`ListRegistry::resolve`], giving the data the `handlers` factory receives,
//!   [`Resolved::to_json`]), enum interpolation ([`ListRegistry::interpolate_enum`],
//!   [`Resolved::interpolate_enum`]) and the look-up behind VAL107
//!   ([`ListRegistry::duplicated_field`]).
//! - [`ListRef`] and [`Filter`]: a `main.sharedLists` entry and its filter.
//! - [`ListScope`]: the registry a file sees, or why there is none.
//!
//! # Decisions (where chapter 03 is silent)
//!
//! - A registry is every `*.mjs` file directly inside `_lists/` (not its sub-directories), loaded in
//!   file-name order with the loader's list scan (SEC200–SEC204). `_lists/_registry.json` is
//!   not read: lists are found by `meta.name`, not by file name.
//! - Discovery (`flowmcp_validate::lists::find_lists_dir`): from the file's directory, the
//!   directory itself and at most ten parents are tried; the first with a `_lists/` sub-directory wins (a file inside `_lists/` sees its own
//!   directory). The walk stops at a catalog root without lists (a directory with `registry.json`).
//!   `_shared/` (accepted by the JavaScript CLI) is not looked for.
//! - The discovery cache (`flowmcp_catalog::ListDiscovery`) belongs to its caller (a catalog while it
//!   opens, the CLI for one run); a registry is loaded once per directory and profile.
//! - The first list (in file-name order) wins a name shared by several files; each of those files gets
//!   LST002.
//! - VAL073: the reference's `version` must equal the list's `meta.version` exactly (string equality,
//!   as the JavaScript reference does); "compatible" versions are not accepted (chapter 03: "a mismatch
//!   is a hard error"). It is checked only when the reference's version is semver (VAL071 reports the
//!   rest).
//! - A list referenced several times by one schema is resolved once: its entries are those that pass
//!   any of the references' filters (a reference without a filter passes everything). A malformed
//!   filter (VAL074) filters nothing, as in the JavaScript reference.
//! - Filters compare with JavaScript `===`: numbers by value (`1` equals `1.0`), strings and booleans
//!   exactly. `exists` is satisfied by a present, non-null value.
//! - Interpolated values are `String(value)` of every entry's field, `null`/missing skipped,
//!   duplicates dropped (first kept), static values first as written; a value containing `,` cannot
//!   be written inside `enum(...)` and makes [`Resolved::interpolate_enum`] fail.
//! - `dependsOn`: a reference must name a list of the registry (or the list itself) whose
//!   `meta.version` equals the pinned version, and a `condition` `{ field, value }` (`key` accepted as
//!   an alias of `field`, as in filters) must name a field of that list and match at least one of its
//!   entries; every such problem is LST009. A list without a registry (no `_lists/` found) checks only
//!   references to itself.
//! - Depth: a list without dependencies is level 1; a list is one level above its deepest dependency.
//!   Level 4 or more is LST011, reported at the `dependsOn` entry that starts the longest chain. A
//!   list in a cycle gets LST010 (at each `dependsOn` entry that leads back to it) and no LST011.
//! - LST001 also covers the shape of the export: `list` must be an object with an object `meta`
//!   (whose `description` is a non-empty string: chapter 03 requires it and no other code covers it),
//!   and the file exports nothing but `list`. When the loader reported LDR008 for a file it classified
//!   as a list (no `list` export), LDR008 is replaced by LST001.
//! - LST002 also requires camelCase (`^[a-z][a-zA-Z0-9]*$`), as chapter 03's naming convention says.
//! - LST007: a required field that is `null` counts as missing; an entry that is not an object is
//!   LST007. LST008: a value of the wrong type, a nested object or array, and a key that is not in
//!   `meta.fields` are LST008.
//! - The reverse index records, per tool, every declared list the tool interpolates (`list:field`)
//!   and, for a declared list the tool does not interpolate, one entry without a field (the list
//!   reaches the tool's handlers). Tool IDs are `namespace/tool/toolName` with the tool's key as
//!   written (no compat sanitising). `flowmcp list-refs` prints chapter 03's two lines per list and
//!   tool, then the index grouped by field (`list (handlers only)` last).
//! - Schema rules (in `rules::lists`): VAL072/VAL073/VAL049/VAL107 run only when the schema sees a
//!   registry; VAL049 also checks a filter's `key`; VAL107's criterion is documented on
//!   `val107_hardcoded_list_values` (at least 3 distinct literals, all values of one `string` field);
//!   without a registry a schema with a non-empty `sharedLists` gets one VAL088 info at
//!   `main.sharedLists`. TST004 checks values of a list-interpolated enum against the filtered list
//!   (an enum whose lists give no values accepts nothing); without a registry it accepts any string.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use serde_json::{Map, Value};

use crate::hash;
use crate::zod::{EnumItem, Primitive, ZodError};

/// The deepest allowed dependency chain, in levels (chapter 03, "Maximum depth: 3 levels").
pub const MAX_DEPENDENCY_DEPTH: usize = 3;

/// The type of a list field (chapter 03, "Type Constraints").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FieldType {
    String,
    Number,
    Boolean,
}

impl FieldType {
    /// `string`, `number` or `boolean`.
    pub fn parse(text: &str) -> Option<FieldType> {
        match text {
            "string" => Some(FieldType::String),
            "number" => Some(FieldType::Number),
            "boolean" => Some(FieldType::Boolean),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            FieldType::String => "string",
            FieldType::Number => "number",
            FieldType::Boolean => "boolean",
        }
    }

    /// Whether `value` has this type (`typeof value === type`).
    pub fn accepts(self, value: &Value) -> bool {
        matches!(
            (self, value),
            (FieldType::String, Value::String(_))
                | (FieldType::Number, Value::Number(_))
                | (FieldType::Boolean, Value::Bool(_))
        )
    }
}

/// One entry of `meta.fields`.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldDef {
    pub key: String,
    /// `None` when `type` is missing or not one of the three types (LST005).
    pub ty: Option<FieldType>,
    pub optional: bool,
}

/// The `condition` of a dependency: the parent must have an entry with `field === value`.
#[derive(Clone, Debug, PartialEq)]
pub struct Condition {
    pub field: String,
    pub value: Value,
}

/// One entry of `meta.dependsOn` that names a list.
#[derive(Clone, Debug, PartialEq)]
pub struct Dependency {
    /// The parent list's name (`ref`).
    pub list: String,
    pub version: Option<String>,
    pub condition: Option<Condition>,
    /// The position in `meta.dependsOn`.
    pub index: usize,
}

/// A shared list, as far as its JSON could be read.
#[derive(Clone, Debug, PartialEq)]
pub struct SharedList {
    pub name: String,
    pub version: Option<String>,
    pub description: Option<String>,
    /// The fields whose `key` is a string.
    pub fields: Vec<FieldDef>,
    /// The `dependsOn` entries whose `ref` is a string.
    pub depends_on: Vec<Dependency>,
    /// The entries that are objects.
    pub entries: Vec<Map<String, Value>>,
    /// The file it was read from (canonical when it could be resolved).
    pub file: Option<PathBuf>,
    /// The name used for the file in messages, e.g. `_lists/evm-chains.mjs`.
    pub display: String,
}

impl SharedList {
    /// Reads the value of a `list` export. `None` when it is not an object whose `meta.name` is a
    /// non-empty string.
    pub fn from_json(list: &Value, display: impl Into<String>) -> Option<SharedList> {
        let list = list.as_object()?;
        let meta = list.get("meta")?.as_object()?;
        let name = meta.get("name")?.as_str().filter(|n| !n.is_empty())?;
        let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_string);
        let fields = meta
            .get("fields")
            .and_then(Value::as_array)
            .map(|items| {
                items
                    .iter()
                    .filter_map(Value::as_object)
                    .filter_map(|f| {
                        Some(FieldDef {
                            key: f.get("key")?.as_str()?.to_string(),
                            ty: f
                                .get("type")
                                .and_then(Value::as_str)
                                .and_then(FieldType::parse),
                            optional: f.get("optional") == Some(&Value::Bool(true)),
                        })
                    })
                    .collect()
            })
            .unwrap_or_default();
        let depends_on = meta
            .get("dependsOn")
            .and_then(Value::as_array)
            .map(|items| {
                items
                    .iter()
                    .enumerate()
                    .filter_map(|(index, d)| {
                        let d = d.as_object()?;
                        Some(Dependency {
                            list: d.get("ref")?.as_str()?.to_string(),
                            version: text(d.get("version")),
                            condition: d
                                .get("condition")
                                .and_then(Value::as_object)
                                .and_then(parse_condition),
                            index,
                        })
                    })
                    .collect()
            })
            .unwrap_or_default();
        let entries = list
            .get("entries")
            .and_then(Value::as_array)
            .map(|items| items.iter().filter_map(Value::as_object).cloned().collect())
            .unwrap_or_default();
        Some(SharedList {
            name: name.to_string(),
            version: text(meta.get("version")),
            description: text(meta.get("description")),
            fields,
            depends_on,
            entries,
            file: None,
            display: display.into(),
        })
    }

    /// The field definition for `key`.
    pub fn field(&self, key: &str) -> Option<&FieldDef> {
        self.fields.iter().find(|f| f.key == key)
    }

    /// The distinct interpolation texts of `field` over `entries`, in entry order (`null` and
    /// missing values skipped).
    fn texts_of<'e>(
        field: &str,
        entries: impl IntoIterator<Item = &'e Map<String, Value>>,
    ) -> Vec<String> {
        let mut seen = HashSet::new();
        entries
            .into_iter()
            .filter_map(|e| e.get(field).and_then(value_text))
            .filter(|t| seen.insert(t.clone()))
            .collect()
    }
}

/// `{ field, value }` (or `{ key, value }`) with a string field and a scalar value.
fn parse_condition(c: &Map<String, Value>) -> Option<Condition> {
    let field = c.get("field").or_else(|| c.get("key"))?.as_str()?;
    let value = c.get("value").filter(|v| is_scalar(v))?;
    Some(Condition {
        field: field.to_string(),
        value: value.clone(),
    })
}

pub fn is_scalar(v: &Value) -> bool {
    matches!(v, Value::String(_) | Value::Number(_) | Value::Bool(_))
}

/// The text an interpolation gives for a value, as JavaScript's `String(value)`: strings as they
/// are, numbers as ECMAScript prints them, booleans as `true`/`false`. `None` for `null` (skipped)
/// and for objects and arrays (not list values).
pub(crate) fn value_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(_) => Some(hash::canonical_json(value)),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// JavaScript `===` on JSON scalars: numbers by value, everything else structurally.
pub fn js_strict_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}

// ---------------------------------------------------------------------------------------
// Filters and references
// ---------------------------------------------------------------------------------------

/// A `sharedLists[].filter`: `{ key, exists: true }`, `{ key, value }` or
/// `{ key, in: [...] }`; `field` is accepted as an alias of `key`.
#[derive(Clone, Debug, PartialEq)]
pub enum Filter {
    /// The field is present and not `null`.
    Exists { key: String },
    /// The field `===` the value.
    Equals { key: String, value: Value },
    /// The field `===` one of the values.
    In { key: String, values: Vec<Value> },
}

impl Filter {
    /// Reads a well-formed filter (as VAL074 defines it); `None` for anything else.
    pub fn parse(value: &Value) -> Option<Filter> {
        let f = value.as_object()?;
        let key = f
            .get("key")
            .or_else(|| f.get("field"))?
            .as_str()
            .filter(|k| !k.is_empty())?
            .to_string();
        let ops = ["exists", "value", "in"]
            .iter()
            .filter(|op| f.contains_key(**op))
            .count();
        if ops != 1 {
            return None;
        }
        if let Some(exists) = f.get("exists") {
            return (exists == &Value::Bool(true)).then_some(Filter::Exists { key });
        }
        if let Some(value) = f.get("value") {
            return is_scalar(value).then(|| Filter::Equals {
                key,
                value: value.clone(),
            });
        }
        let values = f.get("in")?.as_array()?;
        (!values.is_empty() && values.iter().all(is_scalar)).then(|| Filter::In {
            key,
            values: values.clone(),
        })
    }

    /// The field the filter reads.
    pub fn key(&self) -> &str {
        match self {
            Filter::Exists { key } | Filter::Equals { key, .. } | Filter::In { key, .. } => key,
        }
    }

    /// Whether `entry` passes.
    pub fn matches(&self, entry: &Map<String, Value>) -> bool {
        let v = entry.get(self.key());
        match self {
            Filter::Exists { .. } => v.is_some_and(|v| !v.is_null()),
            Filter::Equals { value, .. } => v.is_some_and(|v| js_strict_eq(v, value)),
            Filter::In { values, .. } => {
                v.is_some_and(|v| values.iter().any(|x| js_strict_eq(v, x)))
            }
        }
    }
}

impl Filter {
    /// The filter as written in JSON (with `key`, the canonical name of the field).
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("key".into(), Value::String(self.key().to_string()));
        match self {
            Filter::Exists { .. } => {
                m.insert("exists".into(), Value::Bool(true));
            }
            Filter::Equals { value, .. } => {
                m.insert("value".into(), value.clone());
            }
            Filter::In { values, .. } => {
                m.insert("in".into(), Value::Array(values.clone()));
            }
        }
        Value::Object(m)
    }
}

impl fmt::Display for Filter {
    /// `etherscanAlias exists`, `mainnet = true`, `chainId in [1, 137]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Filter::Exists { key } => write!(f, "{key} exists"),
            Filter::Equals { key, value } => write!(f, "{key} = {}", hash::canonical_json(value)),
            Filter::In { key, values } => {
                let items: Vec<String> = values.iter().map(hash::canonical_json).collect();
                write!(f, "{key} in [{}]", items.join(", "))
            }
        }
    }
}

/// One entry of `main.sharedLists` whose `ref` is a non-empty string.
#[derive(Clone, Debug, PartialEq)]
pub struct ListRef {
    /// The list name (`ref`).
    pub list: String,
    /// `version` when it is a string.
    pub version: Option<String>,
    /// The filter when it is well-formed.
    pub filter: Option<Filter>,
    /// The position in `main.sharedLists`.
    pub index: usize,
}

impl ListRef {
    /// The references of a schema's `main` (entries without a string `ref` are left out).
    pub fn from_main(main: &Value) -> Vec<ListRef> {
        match main.get("sharedLists") {
            Some(Value::Array(items)) => ListRef::from_items(items),
            _ => Vec::new(),
        }
    }

    /// The references of the items of a `sharedLists` array (items without a string `ref` are left
    /// out; `index` is the item's position).
    pub fn from_items(items: &[Value]) -> Vec<ListRef> {
        items
            .iter()
            .enumerate()
            .filter_map(|(index, item)| {
                let item = item.as_object()?;
                let list = item.get("ref")?.as_str().filter(|r| !r.is_empty())?;
                Some(ListRef {
                    list: list.to_string(),
                    version: item
                        .get("version")
                        .and_then(Value::as_str)
                        .map(str::to_string),
                    filter: item.get("filter").and_then(Filter::parse),
                    index,
                })
            })
            .collect()
    }

    /// The reference as `main.sharedLists` writes it: `{ ref, version, filter }`.
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("ref".into(), Value::String(self.list.clone()));
        if let Some(v) = &self.version {
            m.insert("version".into(), Value::String(v.clone()));
        }
        if let Some(f) = &self.filter {
            m.insert("filter".into(), f.to_json());
        }
        Value::Object(m)
    }
}

impl serde::Serialize for ListRef {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(s)
    }
}

/// Reads a `sharedLists` array leniently ([`ListRef::from_items`]), for the typed model.
pub(crate) fn deserialize_refs<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Vec<ListRef>, D::Error> {
    let items = <Vec<Value> as serde::Deserialize>::deserialize(d)?;
    Ok(ListRef::from_items(&items))
}

// ---------------------------------------------------------------------------------------
// Registry
// ---------------------------------------------------------------------------------------

/// The shared lists available to a schema (a catalog's `_lists/`).
#[derive(Clone, Debug, Default)]
pub struct ListRegistry {
    dir: Option<PathBuf>,
    lists: Vec<SharedList>,
    /// Name → index of the first list with that name.
    by_name: HashMap<String, usize>,
    /// Files of the directory that did not give a list (load errors, no `meta.name`).
    unloaded: Vec<String>,
    /// Of those, the ones whose text still names the list they would define: `(name, file)`.
    unloaded_names: Vec<(String, String)>,
    values: OnceLock<ValueIndex>,
}

impl ListRegistry {
    /// A registry of `lists`, in the given order.
    pub fn new(lists: Vec<SharedList>) -> ListRegistry {
        let mut by_name = HashMap::with_capacity(lists.len());
        for (i, l) in lists.iter().enumerate() {
            by_name.entry(l.name.clone()).or_insert(i);
        }
        ListRegistry {
            lists,
            by_name,
            ..ListRegistry::default()
        }
    }

    /// The registry read from the `_lists/` directory `dir`, with its files that did not give a
    /// list (see [`ListRegistry::unloaded`]), each with the name of the list its text says it would
    /// define, when it says one (`meta.name`, read without running the file).
    pub fn from_dir(
        dir: PathBuf,
        lists: Vec<SharedList>,
        unloaded: Vec<(String, Option<String>)>,
    ) -> ListRegistry {
        let mut registry = ListRegistry::new(lists);
        registry.dir = Some(dir);
        for (file, name) in unloaded {
            if let Some(name) = name {
                registry.unloaded_names.push((name, file.clone()));
            }
            registry.unloaded.push(file);
        }
        registry
    }

    /// The file that would define the list `name` (its text says so) but did not give a list: a
    /// finding about `name` missing names it as the cause (issue #28 item 7b).
    pub fn unloaded_file_of(&self, name: &str) -> Option<&str> {
        self.unloaded_names
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, f)| f.as_str())
    }

    /// The `_lists/` directory this registry was loaded from.
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// Every list, in load order (duplicates included).
    pub fn lists(&self) -> &[SharedList] {
        &self.lists
    }

    /// The files that did not give a list.
    pub fn unloaded(&self) -> &[String] {
        &self.unloaded
    }

    pub fn len(&self) -> usize {
        self.lists.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lists.is_empty()
    }

    /// The list named `name` (the first one, when several files share the name).
    pub fn get(&self, name: &str) -> Option<&SharedList> {
        self.by_name.get(name).map(|&i| &self.lists[i])
    }

    /// The distinct list names, sorted.
    pub fn names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self.by_name.keys().map(String::as_str).collect();
        names.sort_unstable();
        names
    }

    /// The interpolation texts of `field` over all entries of `list` (no filter): distinct, in
    /// entry order, `null` and missing values skipped. `None` when the list does not exist or does
    /// not declare the field.
    pub fn field_values(&self, list: &str, field: &str) -> Option<Vec<String>> {
        let l = self.get(list)?;
        l.field(field)?;
        Some(SharedList::texts_of(field, &l.entries))
    }

    /// Resolves a schema's references: each list found once, filtered (see the module decisions),
    /// with the problems a runtime refuses to load with.
    pub fn resolve(&self, refs: &[ListRef]) -> Resolved<'_> {
        let mut order: Vec<&str> = Vec::new();
        let mut grouped: HashMap<&str, Vec<&ListRef>> = HashMap::new();
        for r in refs {
            let group = grouped.entry(r.list.as_str()).or_default();
            if group.is_empty() {
                order.push(r.list.as_str());
            }
            group.push(r);
        }
        let mut resolved = Resolved {
            lists: Vec::with_capacity(order.len()),
            errors: Vec::new(),
        };
        for name in order {
            let group = grouped.get(name).map(Vec::as_slice).unwrap_or_default();
            let Some(list) = self.get(name) else {
                resolved
                    .errors
                    .extend(group.iter().map(|r| ResolveError::NotFound {
                        list: name.to_string(),
                        index: r.index,
                    }));
                continue;
            };
            for r in group {
                if let Some(wanted) = &r.version
                    && list.version.as_deref() != Some(wanted.as_str())
                {
                    resolved.errors.push(ResolveError::VersionMismatch {
                        list: name.to_string(),
                        wanted: wanted.clone(),
                        found: list.version.clone(),
                        index: r.index,
                    });
                }
            }
            let filters: Option<Vec<&Filter>> = group.iter().map(|r| r.filter.as_ref()).collect();
            let entries = match filters {
                Some(filters) => list
                    .entries
                    .iter()
                    .filter(|e| filters.iter().any(|f| f.matches(e)))
                    .collect(),
                None => list.entries.iter().collect(),
            };
            resolved.lists.push((list, entries));
        }
        resolved
    }

    /// [`Resolved::interpolate_enum`] for the references `refs`.
    pub fn interpolate_enum(
        &self,
        refs: &[ListRef],
        text: &str,
    ) -> Result<String, InterpolateError> {
        self.resolve(refs).interpolate_enum(text)
    }

    /// The string field whose values contain every one of `values` (at least `min` distinct ones),
    /// with the number of distinct values the field has. When several fields qualify, a field
    /// whose values identify entries (no value repeats, like `alias`) beats one whose values repeat
    /// (like a `chain` column of price feeds), then the field with the fewest values wins, then the
    /// earlier list and field. This is VAL107's look-up.
    pub fn duplicated_field(
        &self,
        values: &[&str],
        min: usize,
    ) -> Option<(&SharedList, &FieldDef, usize)> {
        let mut distinct: Vec<&str> = Vec::with_capacity(values.len());
        let mut seen = HashSet::new();
        for v in values {
            if seen.insert(*v) {
                distinct.push(v);
            }
        }
        if distinct.len() < min || distinct.is_empty() {
            return None;
        }
        let index = self.values.get_or_init(|| ValueIndex::build(&self.lists));
        let mut candidates: Vec<u32> = index.columns_with(distinct[0]).to_vec();
        for v in &distinct[1..] {
            if candidates.is_empty() {
                return None;
            }
            let other = index.columns_with(v);
            candidates.retain(|c| other.binary_search(c).is_ok());
        }
        let best = candidates
            .into_iter()
            .filter_map(|c| index.columns.get(c as usize))
            .min_by_key(|col| (!col.unique, col.distinct, col.list, col.field))?;
        let list = self.lists.get(best.list)?;
        let field = list.fields.get(best.field)?;
        Some((list, field, best.distinct))
    }
}

/// One string field of one list, for VAL107.
#[derive(Clone, Debug)]
struct Column {
    list: usize,
    field: usize,
    distinct: usize,
    /// No value repeats across entries (the field identifies entries, like `alias`).
    unique: bool,
}

/// Value text → the columns (sorted ids) that contain it.
#[derive(Clone, Debug, Default)]
struct ValueIndex {
    columns: Vec<Column>,
    by_value: HashMap<String, Vec<u32>>,
}

impl ValueIndex {
    fn build(lists: &[SharedList]) -> ValueIndex {
        let mut index = ValueIndex::default();
        let mut names = HashSet::new();
        for (li, list) in lists.iter().enumerate() {
            // Only the first list of a name is visible (as in `get`).
            if !names.insert(list.name.as_str()) {
                continue;
            }
            for (fi, field) in list.fields.iter().enumerate() {
                if field.ty != Some(FieldType::String) {
                    continue;
                }
                let Ok(id) = u32::try_from(index.columns.len()) else {
                    return index;
                };
                let mut distinct: HashSet<&str> = HashSet::new();
                let mut present = 0usize;
                for e in &list.entries {
                    if let Some(Value::String(s)) = e.get(&field.key) {
                        present += 1;
                        if distinct.insert(s.as_str()) {
                            index.by_value.entry(s.clone()).or_default().push(id);
                        }
                    }
                }
                index.columns.push(Column {
                    list: li,
                    field: fi,
                    distinct: distinct.len(),
                    unique: present == distinct.len(),
                });
            }
        }
        index
    }

    fn columns_with(&self, value: &str) -> &[u32] {
        self.by_value.get(value).map(Vec::as_slice).unwrap_or(&[])
    }
}

/// Why a reference cannot be loaded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ResolveError {
    /// No list of that name (VAL072).
    NotFound { list: String, index: usize },
    /// The pinned version differs from the list's (VAL073).
    VersionMismatch {
        list: String,
        wanted: String,
        found: Option<String>,
        index: usize,
    },
}

impl fmt::Display for ResolveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ResolveError::NotFound { list, .. } => {
                write!(f, "shared list \"{list}\" not found")
            }
            ResolveError::VersionMismatch {
                list,
                wanted,
                found,
                ..
            } => write!(
                f,
                "shared list \"{list}\": version mismatch, expected \"{wanted}\" got \"{}\"",
                found.as_deref().unwrap_or("")
            ),
        }
    }
}

/// A schema's resolved shared lists.
#[derive(Clone, Debug)]
pub struct Resolved<'r> {
    /// Each referenced list that exists, with its filtered entries, in the order of first reference.
    /// A list whose version does not match is included too (see [`Resolved::is_ok`]).
    pub lists: Vec<(&'r SharedList, Vec<&'r Map<String, Value>>)>,
    pub errors: Vec<ResolveError>,
}

impl<'r> Resolved<'r> {
    /// Whether a runtime may load the schema: every reference found with its pinned version.
    pub fn is_ok(&self) -> bool {
        self.errors.is_empty()
    }

    /// The filtered entries of `list`.
    pub fn entries(&self, list: &str) -> Option<&[&'r Map<String, Value>]> {
        self.lists
            .iter()
            .find(|(l, _)| l.name == list)
            .map(|(_, e)| e.as_slice())
    }

    /// The `sharedLists` object the `handlers` factory receives: `{ <name>: [ <entries> ] }`.
    pub fn to_json(&self) -> Value {
        self.to_owned_lists().to_json()
    }

    /// The interpolation texts of `field` over the filtered entries of `list` (distinct, in entry
    /// order). `None` when the list is not resolved or does not declare the field.
    pub fn field_values(&self, list: &str, field: &str) -> Option<Vec<String>> {
        let (l, entries) = self.lists.iter().find(|(l, _)| l.name == list)?;
        l.field(field)?;
        Some(SharedList::texts_of(field, entries.iter().copied()))
    }

    /// The same resolution, owning its data (for a runtime that keeps it).
    pub fn to_owned_lists(&self) -> ResolvedLists {
        ResolvedLists {
            lists: self
                .lists
                .iter()
                .map(|(l, entries)| ResolvedList {
                    name: l.name.clone(),
                    fields: l.fields.iter().map(|f| f.key.clone()).collect(),
                    entries: entries.iter().map(|e| (*e).clone()).collect(),
                })
                .collect(),
        }
    }

    /// Replaces the `{{list:field}}` items of an `enum(...)` primitive by the field's values,
    /// joined into the list with any static values: `enum(custom,{{evmChains:alias}})` →
    /// `enum(custom,ethereum,polygon)`. Other primitives are returned unchanged.
    pub fn interpolate_enum(&self, text: &str) -> Result<String, InterpolateError> {
        let primitive = Primitive::parse(text).map_err(InterpolateError::Parse)?;
        let Primitive::Enum(items) = &primitive else {
            return Ok(text.to_string());
        };
        let mut out: Vec<String> = Vec::with_capacity(items.len());
        let mut seen: HashSet<String> = HashSet::new();
        for item in items {
            match item {
                EnumItem::Literal(v) => {
                    if seen.insert(v.clone()) {
                        out.push(v.clone());
                    }
                }
                EnumItem::List { list, field } => {
                    let values = self.field_values(list, field).ok_or_else(|| {
                        InterpolateError::Unresolved {
                            list: list.clone(),
                            field: field.clone(),
                        }
                    })?;
                    for v in values {
                        if v.contains(',') || v.trim() != v || v.is_empty() {
                            return Err(InterpolateError::Unrepresentable {
                                list: list.clone(),
                                field: field.clone(),
                                value: v,
                            });
                        }
                        if seen.insert(v.clone()) {
                            out.push(v);
                        }
                    }
                }
            }
        }
        if out.is_empty() {
            return Err(InterpolateError::Parse(ZodError::EmptyEnum));
        }
        Ok(format!("enum({})", out.join(",")))
    }
}

/// Why [`Resolved::interpolate_enum`] failed.
#[derive(Clone, Debug, PartialEq)]
pub enum InterpolateError {
    /// The primitive does not parse, or the enum ends up empty.
    Parse(ZodError),
    /// The list is not among the resolved lists, or has no such field.
    Unresolved { list: String, field: String },
    /// A value that `enum(...)` cannot hold (a comma, surrounding spaces, or empty).
    Unrepresentable {
        list: String,
        field: String,
        value: String,
    },
}

impl fmt::Display for InterpolateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InterpolateError::Parse(e) => write!(f, "{e}"),
            InterpolateError::Unresolved { list, field } => {
                write!(f, "{{{{{list}:{field}}}}} does not resolve")
            }
            InterpolateError::Unrepresentable { list, field, value } => write!(
                f,
                "{{{{{list}:{field}}}}} has the value {value:?}, which enum(...) cannot hold"
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn chains() -> SharedList {
        SharedList::from_json(
            &json!({
                "meta": {
                    "name": "evmChains", "version": "1.0.0", "description": "Chains",
                    "fields": [
                        { "key": "alias", "type": "string", "description": "a" },
                        { "key": "chainId", "type": "number", "description": "b" },
                        { "key": "etherscanAlias", "type": "string", "description": "c", "optional": true },
                        { "key": "mainnet", "type": "boolean", "description": "d" }
                    ]
                },
                "entries": [
                    { "alias": "ethereum", "chainId": 1, "etherscanAlias": "ETH", "mainnet": true },
                    { "alias": "polygon", "chainId": 137, "etherscanAlias": "POLYGON", "mainnet": true },
                    { "alias": "sepolia", "chainId": 11155111, "etherscanAlias": null, "mainnet": false },
                    { "alias": "solana", "chainId": 101.0, "mainnet": true }
                ]
            }),
            "_lists/evm-chains.mjs",
        )
        .unwrap()
    }

    fn refs(main: Value) -> Vec<ListRef> {
        ListRef::from_main(&main)
    }

    #[test]
    fn filters() {
        let reg = ListRegistry::new(vec![chains()]);
        let cases = [
            (
                json!({ "key": "etherscanAlias", "exists": true }),
                vec!["ETH", "POLYGON"],
            ),
            (
                json!({ "key": "mainnet", "value": true }),
                vec!["ETH", "POLYGON"],
            ),
            (json!({ "field": "chainId", "value": 137 }), vec!["POLYGON"]),
            (json!({ "key": "chainId", "in": [1, 101] }), vec!["ETH"]),
            // Malformed: no filtering.
            (
                json!({ "key": "mainnet", "equals": true }),
                vec!["ETH", "POLYGON"],
            ),
        ];
        for (filter, want) in cases {
            let r = refs(
                json!({ "sharedLists": [ { "ref": "evmChains", "version": "1.0.0", "filter": filter } ] }),
            );
            let res = reg.resolve(&r);
            assert!(res.is_ok());
            assert_eq!(
                res.field_values("evmChains", "etherscanAlias").unwrap(),
                want,
                "{filter}"
            );
        }
        let r = refs(
            json!({ "sharedLists": [ { "ref": "evmChains", "version": "1.0.0", "filter": { "key": "chainId", "in": [101] } } ] }),
        );
        let res = reg.resolve(&r);
        assert_eq!(
            res.field_values("evmChains", "alias").unwrap(),
            vec!["solana"]
        );
        assert_eq!(
            res.field_values("evmChains", "chainId").unwrap(),
            vec!["101"]
        );
        assert_eq!(
            res.to_json(),
            json!({ "evmChains": [ { "alias": "solana", "chainId": 101.0, "mainnet": true } ] })
        );
    }

    #[test]
    fn union_of_repeated_references_and_errors() {
        let reg = ListRegistry::new(vec![chains()]);
        let r = refs(json!({ "sharedLists": [
            { "ref": "evmChains", "version": "1.0.0", "filter": { "key": "chainId", "value": 1 } },
            { "ref": "evmChains", "version": "2.0.0", "filter": { "key": "alias", "value": "sepolia" } },
            { "ref": "fiat", "version": "1.0.0" },
            { "ref": 3 }
        ] }));
        let res = reg.resolve(&r);
        assert_eq!(
            res.field_values("evmChains", "alias").unwrap(),
            vec!["ethereum", "sepolia"]
        );
        assert_eq!(
            res.errors,
            vec![
                ResolveError::VersionMismatch {
                    list: "evmChains".into(),
                    wanted: "2.0.0".into(),
                    found: Some("1.0.0".into()),
                    index: 1
                },
                ResolveError::NotFound {
                    list: "fiat".into(),
                    index: 2
                }
            ]
        );
        assert!(!res.is_ok());
    }

    #[test]
    fn interpolation() {
        let reg = ListRegistry::new(vec![chains()]);
        let r = refs(
            json!({ "sharedLists": [ { "ref": "evmChains", "version": "1.0.0", "filter": { "key": "etherscanAlias", "exists": true } } ] }),
        );
        assert_eq!(
            reg.interpolate_enum(&r, "enum(custom,ETH,{{evmChains:etherscanAlias}})")
                .unwrap(),
            "enum(custom,ETH,POLYGON)"
        );
        assert_eq!(
            reg.interpolate_enum(&r, "enum({{evmChains:chainId}})")
                .unwrap(),
            "enum(1,137)"
        );
        assert_eq!(reg.interpolate_enum(&r, "string()").unwrap(), "string()");
        assert!(matches!(
            reg.interpolate_enum(&r, "enum({{evmChains:nope}})"),
            Err(InterpolateError::Unresolved { .. })
        ));
        assert!(matches!(
            reg.interpolate_enum(&[], "enum({{evmChains:alias}})"),
            Err(InterpolateError::Unresolved { .. })
        ));
        assert_eq!(
            reg.field_values("evmChains", "mainnet").unwrap(),
            vec!["true", "false"]
        );
        assert_eq!(reg.field_values("evmChains", "nope"), None);
        assert_eq!(reg.field_values("nope", "alias"), None);
    }

    #[test]
    fn duplicated_field_prefers_the_tightest() {
        let small = SharedList::from_json(
            &json!({ "meta": { "name": "mainChains", "fields": [ { "key": "slug", "type": "string" } ] },
                     "entries": [ { "slug": "ethereum" }, { "slug": "polygon" }, { "slug": "solana" } ] }),
            "x",
        )
        .unwrap();
        let reg = ListRegistry::new(vec![chains(), small]);
        let (l, f, n) = reg
            .duplicated_field(&["ethereum", "polygon", "solana"], 3)
            .unwrap();
        assert_eq!(
            (l.name.as_str(), f.key.as_str(), n),
            ("mainChains", "slug", 3)
        );
        let (l, f, _) = reg
            .duplicated_field(&["ethereum", "sepolia", "polygon"], 3)
            .unwrap();
        assert_eq!((l.name.as_str(), f.key.as_str()), ("evmChains", "alias"));
        assert!(reg.duplicated_field(&["ethereum", "polygon"], 3).is_none());
        assert!(
            reg.duplicated_field(&["ethereum", "polygon", "x"], 3)
                .is_none()
        );
        assert!(
            reg.duplicated_field(&["ethereum", "ethereum", "polygon"], 3)
                .is_none()
        );
        // A field whose values repeat (a `chain` column) loses to one that identifies entries.
        let feeds = SharedList::from_json(
            &json!({ "meta": { "name": "feeds", "fields": [ { "key": "chain", "type": "string" } ] },
                     "entries": [ { "chain": "ethereum" }, { "chain": "ethereum" }, { "chain": "polygon" }, { "chain": "arbitrum" } ] }),
            "y",
        )
        .unwrap();
        let mut lists = vec![feeds, chains()];
        lists[1].entries[2].insert("alias".into(), json!("arbitrum"));
        let reg = ListRegistry::new(lists);
        let (l, f, _) = reg
            .duplicated_field(&["ethereum", "polygon", "arbitrum"], 3)
            .unwrap();
        assert_eq!((l.name.as_str(), f.key.as_str()), ("evmChains", "alias"));
    }

    #[test]
    fn filter_display_and_strict_equality() {
        assert_eq!(
            Filter::parse(&json!({ "key": "chainId", "in": [1, "x"] }))
                .unwrap()
                .to_string(),
            "chainId in [1, \"x\"]"
        );
        assert_eq!(
            Filter::parse(&json!({ "key": "a", "exists": true }))
                .unwrap()
                .to_string(),
            "a exists"
        );
        assert!(Filter::parse(&json!({ "key": "a", "exists": false })).is_none());
        assert!(Filter::parse(&json!({ "key": "a", "in": [] })).is_none());
        assert!(Filter::parse(&json!({ "key": "a", "value": 1, "in": [1] })).is_none());
        assert!(js_strict_eq(&json!(1), &json!(1.0)));
        assert!(!js_strict_eq(&json!(1), &json!("1")));
        assert_eq!(value_text(&json!(1.5)).unwrap(), "1.5");
        assert_eq!(value_text(&json!(null)), None);
    }
}

/// The shared lists a file sees.
#[derive(Clone, Debug)]
pub enum ListScope {
    /// A registry: found by walking up to `_lists/`, or given by the caller (a catalog).
    Found(Arc<ListRegistry>),
    /// No `_lists/` directory found walking up from `searched_from` (the file's directory, as the
    /// user named it).
    NotFound { searched_from: String },
    /// Nobody looked (the caller gave no scope).
    NotSearched,
}

impl Default for ListScope {
    /// Nobody looked.
    fn default() -> Self {
        ListScope::NotSearched
    }
}

impl ListScope {
    /// The registry, when there is one.
    pub fn registry(&self) -> Option<&ListRegistry> {
        match self {
            ListScope::Found(r) => Some(r),
            _ => None,
        }
    }

    /// Why there is no registry, for messages (`None` when there is one).
    pub fn missing_reason(&self) -> Option<String> {
        match self {
            ListScope::Found(_) => None,
            ListScope::NotFound { searched_from } => Some(format!(
                "no `{}/` directory found walking up from {searched_from}",
                crate::catalog::LISTS_DIR
            )),
            ListScope::NotSearched => Some("no list registry was provided".to_string()),
        }
    }
}

/// A schema's shared lists, resolved and owned: what its `handlers` factory receives
/// ([`ResolvedLists::to_json`]) and what its list-interpolated enums accept
/// ([`ResolvedLists::field_values`]). Made by [`Resolved::to_owned_lists`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ResolvedLists {
    lists: Vec<ResolvedList>,
}

/// One list of a [`ResolvedLists`].
#[derive(Clone, Debug, PartialEq)]
struct ResolvedList {
    name: String,
    /// The keys of the list's declared fields.
    fields: Vec<String>,
    /// The entries that passed the references' filters.
    entries: Vec<Map<String, Value>>,
}

impl ResolvedLists {
    /// `{ <name>: [ <entries> ] }`, in the order of first reference.
    pub fn to_json(&self) -> Value {
        Value::Object(
            self.lists
                .iter()
                .map(|l| {
                    let entries = l.entries.iter().cloned().map(Value::Object).collect();
                    (l.name.clone(), Value::Array(entries))
                })
                .collect(),
        )
    }

    /// The interpolation texts of `field` over the entries of `list` (distinct, in entry order);
    /// `None` when the list is not resolved or does not declare the field.
    pub fn field_values(&self, list: &str, field: &str) -> Option<Vec<String>> {
        let l = self.lists.iter().find(|l| l.name == list)?;
        l.fields
            .iter()
            .any(|f| f == field)
            .then(|| SharedList::texts_of(field, &l.entries))
    }
}
