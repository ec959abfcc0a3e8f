//! LST001–LST011 for one list file (decisions in the module documentation of [`super`]).

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::Path;

use flowmcp_loader::Exports;
use flowmcp_spec::{Code, JsonPath, diagnostic::Collector};
use serde_json::{Map, Value};

use super::{
    FieldType, ListRegistry, ListScope, MAX_DEPENDENCY_DEPTH, SharedList, is_scalar, js_strict_eq,
};
use crate::quote::shown;
use flowmcp_spec::diagnostic::json_type as type_name;

/// Runs LST001–LST011 on a file the loader classified as a shared list. `path` identifies the file
/// among the registry's lists (LST002, LST009–LST011); the caller made it canonical when the file
/// is on disk, as the registry's lists are.
///
/// LST001: A shared-list file does not have the shape chapter 03 prescribes: it has no named `list`
/// export, `list` is not an object with an object `meta`, `meta.description` is missing or empty,
/// or the file exports something besides `list`.
///
/// # Why
///
/// The runtime reads a list only through its `list` export, and a list file holds exactly one list
/// and nothing else: lists are pure data. The description is what tells people and AI clients what
/// the values mean.
pub(crate) fn check_list_file(
    exports: &Exports,
    scope: &ListScope,
    path: Option<&Path>,
    display: &str,
    c: &mut Collector<'_>,
) {
    for name in &exports.names {
        if name != "list" {
            c.emit(
                Code::LST001,
                None,
                format!("A list file must export only `list` (found also `{name}`)"),
            );
        }
    }
    let Some(list) = exports.get("list") else {
        let found = exports.describe_names();
        c.emit(
            Code::LST001,
            None,
            format!(
                "Must export `list` as a named export: `export const list = {{ meta, entries }}` (found {found})"
            ),
        );
        return;
    };
    let root = JsonPath::root("list");
    let Some(obj) = list.as_object() else {
        c.emit(
            Code::LST001,
            Some(&root),
            format!(
                "Must be an object {{ meta, entries }} (found {})",
                type_name(list)
            ),
        );
        return;
    };
    let meta_path = root.key("meta");
    let fields = match obj.get("meta") {
        Some(Value::Object(meta)) => check_meta(meta, &meta_path, scope, path, c),
        Some(other) => {
            c.emit(
                Code::LST001,
                Some(&meta_path),
                format!(
                    "Must be an object {{ name, version, description, fields }} (found {})",
                    type_name(other)
                ),
            );
            None
        }
        None => {
            c.emit(Code::LST001, Some(&root), "Missing required field \"meta\"");
            None
        }
    };
    check_entries(obj, &root, fields.as_ref(), c);
    if let Some(meta) = obj.get("meta").and_then(Value::as_object) {
        let this = SharedList::from_json(list, display);
        check_dependencies(meta, this.as_ref(), scope.registry(), &meta_path, c);
    }
}

fn is_camel_case(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase()) && chars.all(|c| c.is_ascii_alphanumeric())
}

/// Whether `list` was loaded from `file`.
fn same_file(list: &SharedList, file: Option<&Path>) -> bool {
    matches!((&list.file, file), (Some(a), Some(b)) if a == b)
}

/// The usable field definitions: key → (type when valid, optional).
type Fields = HashMap<String, (Option<FieldType>, bool)>;

/// LST001 (description), LST002–LST005; returns the field definitions when `fields` is usable.
///
/// LST002: `list.meta.name` is missing, not a string, not camelCase (`evmChains`), or also the name
/// of another list in the same registry; every file that shares the name is reported.
///
/// # Why
///
/// Schemas reference lists by name (`ref: 'evmChains'`) and IDs spell them `shared/list/evmChains`.
/// Two lists with one name would make every reference ambiguous; chapter 03 treats them as a
/// version conflict, not as two lists.
///
/// LST003: `list.meta.version` is missing or not a semantic version such as `1.0.0`.
///
/// # Why
///
/// Schemas pin the list versions they use, and chapter 03 ties each kind of change to a kind of
/// bump: patch for corrections, minor for additions, major for removals and renames. A version that
/// is not semver cannot be compared with a pin.
///
/// LST004: `list.meta.fields` is missing, not an array, or empty.
///
/// # Why
///
/// The fields declare the columns of every entry: their keys, types and whether they are required.
/// Entries, interpolations (`{{list:field}}`) and filters are all checked against them, so a list
/// without fields describes nothing.
///
/// LST005: An entry of `meta.fields` is not an object with a string `key`, a `type` of `string`,
/// `number` or `boolean`, and a `description`; also a key declared twice and an `optional` that is
/// not a boolean.
///
/// # Why
///
/// Lists are flat tables of primitive values by design. A field's type is what entries are checked
/// against (LST008) and its key is what schemas interpolate and filter on, so both must be
/// unambiguous, and the description documents the column.
fn check_meta(
    meta: &Map<String, Value>,
    path: &JsonPath,
    scope: &ListScope,
    file: Option<&Path>,
    c: &mut Collector<'_>,
) -> Option<Fields> {
    // LST002
    match meta.get("name") {
        None => {
            c.emit(Code::LST002, Some(path), "Missing required field \"name\"");
        }
        Some(Value::String(name)) if is_camel_case(name) => {
            if let Some(reg) = scope.registry() {
                let others: Vec<&str> = reg
                    .lists()
                    .iter()
                    .filter(|l| l.name == *name && !same_file(l, file))
                    .map(|l| l.display.as_str())
                    .collect();
                if !others.is_empty() {
                    c.emit(
                        Code::LST002,
                        Some(&path.key("name")),
                        format!(
                            "Must be unique in the list registry: \"{name}\" is also defined in {}",
                            others.join(", ")
                        ),
                    );
                }
            }
        }
        Some(Value::String(name)) if !name.is_empty() => {
            c.emit(
                Code::LST002,
                Some(&path.key("name")),
                format!(
                    "Must be camelCase such as \"evmChains\" (found {})",
                    shown(&Value::String(name.clone()))
                ),
            );
        }
        Some(other) => {
            c.emit(
                Code::LST002,
                Some(&path.key("name")),
                format!("Must be a non-empty string (found {})", shown(other)),
            );
        }
    }
    // LST003
    match meta.get("version") {
        None => {
            c.emit(
                Code::LST003,
                Some(path),
                "Missing required field \"version\"",
            );
        }
        Some(Value::String(v)) if semver::Version::parse(v).is_ok() => {}
        Some(other) => {
            c.emit(
                Code::LST003,
                Some(&path.key("version")),
                format!("Must be semver such as \"1.0.0\" (found {})", shown(other)),
            );
        }
    }
    // LST001: description
    match meta.get("description") {
        None => {
            c.emit(
                Code::LST001,
                Some(path),
                "Missing required field \"description\"",
            );
        }
        Some(Value::String(s)) if !s.trim().is_empty() => {}
        Some(other) => {
            c.emit(
                Code::LST001,
                Some(&path.key("description")),
                format!("Must be a non-empty string (found {})", shown(other)),
            );
        }
    }
    // LST004, LST005
    let fields_path = path.key("fields");
    let items = match meta.get("fields") {
        None => {
            c.emit(
                Code::LST004,
                Some(path),
                "Missing required field \"fields\"",
            );
            return None;
        }
        Some(Value::Array(items)) if !items.is_empty() => items,
        Some(Value::Array(_)) => {
            c.emit(
                Code::LST004,
                Some(&fields_path),
                "Must be a non-empty array of { key, type, description } (found [])",
            );
            return None;
        }
        Some(other) => {
            c.emit(
                Code::LST004,
                Some(&fields_path),
                format!(
                    "Must be a non-empty array of {{ key, type, description }} (found {})",
                    type_name(other)
                ),
            );
            return None;
        }
    };
    let mut fields: Fields = HashMap::with_capacity(items.len());
    let mut first_index: HashMap<&str, usize> = HashMap::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let at = fields_path.index(i);
        let Some(f) = item.as_object() else {
            c.emit(
                Code::LST005,
                Some(&at),
                format!(
                    "Must be an object {{ key, type, description }} (found {})",
                    type_name(item)
                ),
            );
            continue;
        };
        let key = match f.get("key") {
            Some(Value::String(k)) if !k.is_empty() => Some(k.as_str()),
            None => {
                c.emit(Code::LST005, Some(&at), "Missing required field \"key\"");
                None
            }
            Some(other) => {
                c.emit(
                    Code::LST005,
                    Some(&at.key("key")),
                    format!("Must be a non-empty string (found {})", shown(other)),
                );
                None
            }
        };
        let ty = match f.get("type") {
            None => {
                c.emit(Code::LST005, Some(&at), "Missing required field \"type\"");
                None
            }
            Some(v) => match v.as_str().and_then(FieldType::parse) {
                Some(t) => Some(t),
                None => {
                    c.emit(
                        Code::LST005,
                        Some(&at.key("type")),
                        format!(
                            "Must be \"string\", \"number\" or \"boolean\" (found {})",
                            shown(v)
                        ),
                    );
                    None
                }
            },
        };
        match f.get("description") {
            None => {
                c.emit(
                    Code::LST005,
                    Some(&at),
                    "Missing required field \"description\"",
                );
            }
            Some(Value::String(_)) => {}
            Some(other) => {
                c.emit(
                    Code::LST005,
                    Some(&at.key("description")),
                    format!("Must be a string (found {})", type_name(other)),
                );
            }
        }
        let optional = match f.get("optional") {
            None => false,
            Some(Value::Bool(b)) => *b,
            Some(other) => {
                c.emit(
                    Code::LST005,
                    Some(&at.key("optional")),
                    format!("Must be a boolean (found {})", type_name(other)),
                );
                // Not known to be required: entries are not reported for leaving it out.
                true
            }
        };
        if let Some(key) = key {
            if let Some(first) = first_index.get(key) {
                c.emit(
                    Code::LST005,
                    Some(&at.key("key")),
                    format!("Must be unique (\"{key}\" is also field {first})"),
                );
            } else {
                first_index.insert(key, i);
                fields.insert(key.to_string(), (ty, optional));
            }
        }
    }
    Some(fields)
}

/// LST006–LST008: the entries against the field definitions.
///
/// LST006: `list.entries` is missing, not an array, or empty.
///
/// # Why
///
/// The entries are the list's values. Without any, every enum interpolated from the list accepts
/// nothing and every schema that references it receives an empty list.
///
/// LST007: An entry lacks a field that `meta.fields` declares without `optional: true`, or sets it
/// to `null`; an entry that is not an object is reported here too.
///
/// # Why
///
/// Schemas rely on required fields being present in every entry: an enum built from the field or a
/// handler that maps `alias` to a provider's value would otherwise skip entries silently. Columns
/// that only some entries have are what `optional: true` is for.
///
/// LST008: A value in an entry does not have the type its field declares (a `chainId` of `'1'`
/// where `number` is declared), is a nested object or array, or belongs to a key that `meta.fields`
/// does not declare.
///
/// # Why
///
/// Filters compare values strictly, so `'1'` and `1` are different values, and handlers rely on the
/// declared types. Chapter 03 keeps entries flat maps of declared fields, which is what makes them
/// safe to interpolate, filter and compare.
fn check_entries(
    list: &Map<String, Value>,
    root: &JsonPath,
    fields: Option<&Fields>,
    c: &mut Collector<'_>,
) {
    let path = root.key("entries");
    let entries = match list.get("entries") {
        None => {
            c.emit(
                Code::LST006,
                Some(root),
                "Missing required field \"entries\"",
            );
            return;
        }
        Some(Value::Array(items)) if !items.is_empty() => items,
        Some(Value::Array(_)) => {
            c.emit(
                Code::LST006,
                Some(&path),
                "Must be a non-empty array of entries (found [])",
            );
            return;
        }
        Some(other) => {
            c.emit(
                Code::LST006,
                Some(&path),
                format!(
                    "Must be a non-empty array of entries (found {})",
                    type_name(other)
                ),
            );
            return;
        }
    };
    let Some(fields) = fields else { return };
    // Required fields in declaration order would need the array; sorted keys keep output stable.
    let mut required: Vec<&str> = fields
        .iter()
        .filter(|(_, (_, optional))| !optional)
        .map(|(k, _)| k.as_str())
        .collect();
    required.sort_unstable();
    for (i, entry) in entries.iter().enumerate() {
        let at = path.index(i);
        let Some(e) = entry.as_object() else {
            c.emit(
                Code::LST007,
                Some(&at),
                format!(
                    "Must be an object of field values (found {})",
                    type_name(entry)
                ),
            );
            continue;
        };
        for key in &required {
            match e.get(*key) {
                None => {
                    c.emit(
                        Code::LST007,
                        Some(&at),
                        format!("Missing required field \"{key}\""),
                    );
                }
                Some(Value::Null) => {
                    c.emit(
                        Code::LST007,
                        Some(&at.key(key)),
                        format!("Must not be null (\"{key}\" is a required field)"),
                    );
                }
                Some(_) => {}
            }
        }
        for (key, value) in e {
            match fields.get(key) {
                None => {
                    c.emit(
                        Code::LST008,
                        Some(&at.key(key)),
                        format!("Unknown field \"{key}\" (not declared in meta.fields)"),
                    );
                }
                Some(_) if value.is_null() => {}
                Some((Some(ty), _)) if !ty.accepts(value) => {
                    c.emit(
                        Code::LST008,
                        Some(&at.key(key)),
                        format!(
                            "Must be a {} as declared in meta.fields (found {} {})",
                            ty.as_str(),
                            type_name(value),
                            shown(value)
                        ),
                    );
                }
                Some(_) => {}
            }
        }
    }
}

/// A node of the dependency graph: a registry list (by index) or the file being checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Node {
    Reg(usize),
    This,
}

/// The dependency graph as seen by one list: the registry with this list in place of any list of
/// the same name.
struct Graph<'a> {
    this: &'a SharedList,
    registry: Option<&'a ListRegistry>,
    /// Registry index of every name (first wins).
    index: HashMap<&'a str, usize>,
}

impl<'a> Graph<'a> {
    fn new(this: &'a SharedList, registry: Option<&'a ListRegistry>) -> Graph<'a> {
        let mut index = HashMap::new();
        if let Some(r) = registry {
            for (i, l) in r.lists().iter().enumerate() {
                index.entry(l.name.as_str()).or_insert(i);
            }
        }
        Graph {
            this,
            registry,
            index,
        }
    }

    fn node(&self, name: &str) -> Option<Node> {
        if name == self.this.name {
            return Some(Node::This);
        }
        self.index.get(name).map(|&i| Node::Reg(i))
    }

    fn list(&self, node: Node) -> Option<&'a SharedList> {
        match node {
            Node::This => Some(self.this),
            Node::Reg(i) => self.registry.and_then(|r| r.lists().get(i)),
        }
    }

    fn name(&self, node: Node) -> &'a str {
        self.list(node).map(|l| l.name.as_str()).unwrap_or("?")
    }

    fn children(&self, node: Node) -> Vec<Node> {
        self.list(node)
            .map(|l| {
                l.depends_on
                    .iter()
                    .filter_map(|d| self.node(&d.list))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The shortest path from `from` to this list (both included), if any.
    fn path_back(&self, from: Node) -> Option<Vec<Node>> {
        let mut parent: HashMap<Node, Node> = HashMap::new();
        let mut queue = VecDeque::from([from]);
        let mut seen = HashSet::from([from]);
        while let Some(n) = queue.pop_front() {
            if n == Node::This {
                let mut path = vec![n];
                let mut cur = n;
                while let Some(&p) = parent.get(&cur) {
                    path.push(p);
                    cur = p;
                }
                path.reverse();
                return Some(path);
            }
            for child in self.children(n) {
                if seen.insert(child) {
                    parent.insert(child, n);
                    queue.push_back(child);
                }
            }
        }
        None
    }

    /// The longest dependency chain starting at this list (this list first), ignoring edges that
    /// close a cycle. Iterative, memoised: linear in the reachable graph.
    fn longest_chain(&self) -> Vec<Node> {
        enum State {
            OnStack,
            Done(usize, Option<Node>),
        }
        let mut state: HashMap<Node, State> = HashMap::new();
        let mut stack: Vec<(Node, Vec<Node>, usize)> =
            vec![(Node::This, self.children(Node::This), 0)];
        state.insert(Node::This, State::OnStack);
        while let Some((node, children, next)) = stack.last_mut() {
            if let Some(&child) = children.get(*next) {
                *next += 1;
                if let std::collections::hash_map::Entry::Vacant(slot) = state.entry(child) {
                    slot.insert(State::OnStack);
                    let grandchildren = self.children(child);
                    stack.push((child, grandchildren, 0));
                }
                continue;
            }
            let mut best: (usize, Option<Node>) = (1, None);
            for child in children.iter() {
                if let Some(State::Done(len, _)) = state.get(child)
                    && len + 1 > best.0
                {
                    best = (len + 1, Some(*child));
                }
            }
            let node = *node;
            state.insert(node, State::Done(best.0, best.1));
            stack.pop();
        }
        let mut chain = vec![Node::This];
        let mut cur = Node::This;
        while let Some(State::Done(_, Some(next))) = state.get(&cur) {
            if chain.contains(next) {
                break;
            }
            chain.push(*next);
            cur = *next;
        }
        chain
    }
}

/// LST009–LST011 for the list whose `meta` is `meta`; `this` is the list as read (`None` when its
/// name is unusable, LST002), which is needed to resolve references.
///
/// LST009: An entry of `meta.dependsOn` does not resolve: it is not an object `{ ref, version,
/// condition? }`, its `ref` names no list in the registry, its `version` is not that list's
/// `meta.version`, or its `condition` names a field the parent list does not have or matches none
/// of its entries.
///
/// # Why
///
/// Dependencies build hierarchies such as states within a country. Chapter 03 has the runtime
/// verify them before the list is made available, so an unresolvable dependency fails the load;
/// validation names the entry at fault first.
///
/// LST010: Following `meta.dependsOn` from a list leads back to the list itself, directly (a list
/// that depends on itself) or through other lists; the message shows the cycle.
///
/// # Why
///
/// Chapter 03 forbids circular dependencies: a cycle has no list that can be resolved first, so
/// none of its lists could be loaded.
///
/// LST011: A chain of `meta.dependsOn` is deeper than three levels: a list without dependencies is
/// level 1, and a list is one level above its deepest dependency. The message shows the longest
/// chain; lists in a cycle get LST010 instead.
///
/// # Why
///
/// Chapter 03 caps dependencies at three levels to keep resolution simple and the dependency graph
/// shallow, so that the effect of changing a list stays easy to follow.
fn check_dependencies(
    meta: &Map<String, Value>,
    this: Option<&SharedList>,
    registry: Option<&ListRegistry>,
    meta_path: &JsonPath,
    c: &mut Collector<'_>,
) {
    let path = meta_path.key("dependsOn");
    let raw = match meta.get("dependsOn") {
        None => return,
        Some(Value::Array(items)) => items,
        Some(other) => {
            c.emit(
                Code::LST009,
                Some(&path),
                format!(
                    "Must be an array of {{ ref, version, condition? }} (found {})",
                    type_name(other)
                ),
            );
            return;
        }
    };
    let graph = this.map(|t| Graph::new(t, registry));
    // LST009: shape and resolution.
    for (j, item) in raw.iter().enumerate() {
        let at = path.index(j);
        let Some(d) = item.as_object() else {
            c.emit(
                Code::LST009,
                Some(&at),
                format!(
                    "Must be an object {{ ref, version, condition? }} (found {})",
                    type_name(item)
                ),
            );
            continue;
        };
        let name = match d.get("ref") {
            Some(Value::String(r)) if !r.is_empty() => Some(r.as_str()),
            None => {
                c.emit(Code::LST009, Some(&at), "Missing required field \"ref\"");
                None
            }
            Some(other) => {
                c.emit(
                    Code::LST009,
                    Some(&at.key("ref")),
                    format!("Must be a non-empty string (found {})", shown(other)),
                );
                None
            }
        };
        let version = match d.get("version") {
            Some(Value::String(v)) if semver::Version::parse(v).is_ok() => Some(v.as_str()),
            None => {
                c.emit(
                    Code::LST009,
                    Some(&at),
                    "Missing required field \"version\"",
                );
                None
            }
            Some(other) => {
                c.emit(
                    Code::LST009,
                    Some(&at.key("version")),
                    format!("Must be semver such as \"1.0.0\" (found {})", shown(other)),
                );
                None
            }
        };
        let condition = check_condition_shape(d, &at, c);
        let (Some(name), Some(graph)) = (name, graph.as_ref()) else {
            continue;
        };
        let target = graph.node(name).and_then(|n| graph.list(n));
        let Some(parent) = target else {
            if registry.is_some() {
                let help = registry.map(|r| {
                    let names = r.names();
                    if let Some(file) = r.unloaded_file_of(name) {
                        format!(
                            "{file} would define it, but it cannot be loaded: fix that file first"
                        )
                    } else if names.is_empty() {
                        "the list registry is empty".to_string()
                    } else {
                        format!("available lists: {}", names.join(", "))
                    }
                });
                c.emit_help(
                    Code::LST009,
                    Some(&at.key("ref")),
                    format!("Must name an existing list (found \"{name}\", which is not in the list registry)"),
                    help,
                );
            }
            continue;
        };
        if let Some(v) = version
            && parent.version.as_deref() != Some(v)
        {
            c.emit(
                Code::LST009,
                Some(&at.key("version")),
                format!(
                    "Must equal the version of list \"{name}\" (\"{}\"; found \"{v}\")",
                    parent.version.as_deref().unwrap_or("none")
                ),
            );
        }
        if let Some((field_key, field, value)) = condition {
            if parent.field(field).is_none() {
                c.emit(
                    Code::LST009,
                    Some(&at.key("condition").key(field_key)),
                    format!("Must be a field of list \"{name}\" (found \"{field}\")"),
                );
            } else if !parent
                .entries
                .iter()
                .any(|e| e.get(field).is_some_and(|v| js_strict_eq(v, value)))
            {
                c.emit(
                    Code::LST009,
                    Some(&at.key("condition")),
                    format!(
                        "No entry of list \"{name}\" has {field} = {}; the dependency cannot be resolved",
                        shown(value)
                    ),
                );
            }
        }
    }
    let (Some(this), Some(graph)) = (this, graph) else {
        return;
    };
    // LST010: each dependency that leads back to this list.
    let mut in_cycle = false;
    for dep in &this.depends_on {
        let Some(target) = graph.node(&dep.list) else {
            continue;
        };
        if let Some(path_back) = graph.path_back(target) {
            in_cycle = true;
            let names: Vec<&str> = std::iter::once(this.name.as_str())
                .chain(path_back.iter().map(|n| graph.name(*n)))
                .collect();
            c.emit(
                Code::LST010,
                Some(&path.index(dep.index).key("ref")),
                format!("Circular dependency: {}", names.join(" → ")),
            );
        }
    }
    if in_cycle {
        return;
    }
    // LST011: the longest chain.
    let chain = graph.longest_chain();
    if chain.len() > MAX_DEPENDENCY_DEPTH
        && let Some(first) = chain.get(1)
    {
        let first_name = graph.name(*first);
        let index = this
            .depends_on
            .iter()
            .find(|d| d.list == first_name)
            .map(|d| d.index)
            .unwrap_or(0);
        let names: Vec<&str> = chain.iter().map(|n| graph.name(*n)).collect();
        c.emit(
            Code::LST011,
            Some(&path.index(index)),
            format!(
                "Dependency chain is {} levels deep ({}); the maximum is {MAX_DEPENDENCY_DEPTH}",
                chain.len(),
                names.join(" → ")
            ),
        );
    }
}

/// LST009 for the shape of a `condition`; returns `(name of the field key, field, value)` when it
/// is usable.
fn check_condition_shape<'v>(
    d: &'v Map<String, Value>,
    at: &JsonPath,
    c: &mut Collector<'_>,
) -> Option<(&'static str, &'v str, &'v Value)> {
    let cond = d.get("condition")?;
    let at = at.key("condition");
    let Some(cond) = cond.as_object() else {
        c.emit(
            Code::LST009,
            Some(&at),
            format!(
                "Must be an object {{ field, value }} (found {})",
                type_name(cond)
            ),
        );
        return None;
    };
    let (field_key, field) = match (cond.get("field"), cond.get("key")) {
        (Some(v), _) => ("field", v),
        (None, Some(v)) => ("key", v),
        (None, None) => {
            c.emit(Code::LST009, Some(&at), "Missing required field \"field\"");
            return None;
        }
    };
    let Some(field) = field.as_str().filter(|f| !f.is_empty()) else {
        c.emit(
            Code::LST009,
            Some(&at.key(field_key)),
            format!("Must be a non-empty string (found {})", shown(field)),
        );
        return None;
    };
    match cond.get("value") {
        None => {
            c.emit(Code::LST009, Some(&at), "Missing required field \"value\"");
            None
        }
        Some(v) if is_scalar(v) => Some((field_key, field, v)),
        Some(other) => {
            c.emit(
                Code::LST009,
                Some(&at.key("value")),
                format!(
                    "Must be a string, number or boolean (found {})",
                    type_name(other)
                ),
            );
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn list(name: &str, deps: &[&str]) -> SharedList {
        let deps: Vec<Value> = deps
            .iter()
            .map(|d| json!({ "ref": d, "version": "1.0.0" }))
            .collect();
        SharedList::from_json(
            &json!({ "meta": { "name": name, "version": "1.0.0", "dependsOn": deps }, "entries": [] }),
            format!("_lists/{name}.mjs"),
        )
        .unwrap()
    }

    fn names(g: &Graph<'_>, nodes: &[Node]) -> Vec<String> {
        nodes.iter().map(|n| g.name(*n).to_string()).collect()
    }

    #[test]
    fn a_cycle_below_this_list_is_not_this_lists_cycle() {
        let reg = ListRegistry::new(vec![
            list("b", &["c"]),
            list("c", &["b", "d"]),
            list("d", &[]),
        ]);
        let this = list("a", &["b"]);
        let g = Graph::new(&this, Some(&reg));
        assert!(g.path_back(Node::Reg(0)).is_none());
        assert_eq!(names(&g, &g.longest_chain()), vec!["a", "b", "c", "d"]);
    }

    #[test]
    fn this_list_replaces_a_registry_list_of_the_same_name() {
        // The registry's own copy of `a` depends on nothing; the file being checked closes a cycle.
        let reg = ListRegistry::new(vec![list("a", &[]), list("b", &["a"])]);
        let this = list("a", &["b"]);
        let g = Graph::new(&this, Some(&reg));
        let back = g.path_back(Node::Reg(1)).unwrap();
        assert_eq!(names(&g, &back), vec!["b", "a"]);
    }

    #[test]
    fn chains_without_a_registry() {
        let this = list("a", &["a", "missing"]);
        let g = Graph::new(&this, None);
        assert_eq!(g.path_back(Node::This), Some(vec![Node::This]));
        assert_eq!(names(&g, &g.longest_chain()), vec!["a"]);
    }
}
