//! The reverse index `list:field → [tool IDs]` (chapter 03, "Reverse-Lookup Index").

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use flowmcp_loader::Limits;
use flowmcp_spec::RuleSettings;
use rayon::prelude::*;

use flowmcp_spec::id::{IdType, defined_text};
use flowmcp_spec::placeholder::find_interpolations;
use serde_json::{Map, Value, json};

use flowmcp_spec::lists::{ListRef, SharedList};

/// One use of a shared list by one tool.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct ListUse {
    /// The tool ID, `namespace/tool/toolName`.
    pub tool_id: String,
    pub list: String,
    /// The interpolated field; `None` when the tool does not interpolate the list (it reaches the
    /// tool's handlers only).
    pub field: Option<String>,
    /// The reference's filter as text (`etherscanAlias exists`); several references of the same
    /// list are joined with ` or `; `None` when some reference has no (well-formed) filter.
    pub filter: Option<String>,
    /// The schema file, as named by the caller.
    pub schema: String,
}

/// The reverse list index of the catalog at `root`: the list uses of every schema file below it
/// that mentions `sharedLists`. Directories and files whose names start with `_` or `.`,
/// `node_modules` and `target` are skipped (as the JavaScript CLI skips `_` entries), links out
/// of the catalog are not followed, and each file is read through the catalog's handle within
/// `limits` and loaded under `settings`. Besides the index: the files (as shown, relative to
/// `root`) that mention `sharedLists` but do not load as a schema, sorted. The error is the
/// walk's, when `root` cannot be read.
pub fn index_catalog(
    root: &Path,
    settings: &RuleSettings,
    limits: &Limits,
) -> std::io::Result<(ReverseIndex, Vec<String>)> {
    let mut files = Vec::new();
    for path in flowmcp_files::walk::mjs_files(root, &|name| name.starts_with('_'))? {
        let hidden = path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with(['_', '.']));
        if hidden {
            continue;
        }
        let display = path
            .strip_prefix(root)
            .unwrap_or(&path)
            .to_string_lossy()
            .replace('\\', "/");
        files.push((path, display));
    }
    // In walk order (a parallel collect keeps it).
    let results: Vec<Result<Vec<ListUse>, String>> = files
        .par_iter()
        .filter_map(|(path, display)| uses_of_file(root, path, display, settings, limits))
        .collect();
    let mut index = ReverseIndex::new();
    let mut skipped = Vec::new();
    for r in results {
        match r {
            Ok(uses) => index.extend(uses),
            Err(display) => skipped.push(display),
        }
    }
    skipped.sort();
    Ok((index, skipped))
}

/// The list uses of one file: `None` when it does not mention `sharedLists` (so cannot reference a
/// list), `Err(display)` when it mentions it but does not load as a schema.
fn uses_of_file(
    root: &Path,
    path: &Path,
    display: &str,
    settings: &RuleSettings,
    limits: &Limits,
) -> Option<Result<Vec<ListUse>, String>> {
    // Found by walking `root`: read through its handle.
    let bytes = flowmcp_files::read_found(Some(root), path, limits.max_file_bytes).ok()?;
    let text = String::from_utf8(bytes).ok()?;
    if !text.contains("sharedLists") {
        return None;
    }
    let loaded = flowmcp_loader::load_source(path, display, &text, limits, settings);
    let main = loaded.exports.as_ref().and_then(|e| e.get("main"));
    Some(match main {
        Some(main) => Ok(list_uses(main, display, settings.profile.is_compat())),
        // An agent manifest's `sharedLists` is a list of names, not a schema's references.
        None if loaded.exports.as_ref().is_some_and(|e| !e.has("main")) => Ok(Vec::new()),
        None => Err(display.to_string()),
    })
}

/// The list uses of one schema: for each tool and each list declared in `main.sharedLists`, one use
/// per interpolated field (`{{list:field}}` in the tool's parameters), or one use without a field
/// when the tool interpolates none of the list's fields. A schema without a string `namespace` or
/// without tools gives none. A tool is named by its ID as the runtime makes it (under `compat`, a
/// name that is not a valid ID name is sanitised).
pub fn list_uses(main: &Value, schema: &str, compat: bool) -> Vec<ListUse> {
    let Some(namespace) = main.get("namespace").and_then(Value::as_str) else {
        return Vec::new();
    };
    let tools = match (main.get("tools"), main.get("routes")) {
        (Some(Value::Object(t)), _) | (None, Some(Value::Object(t))) => t,
        _ => return Vec::new(),
    };
    let refs = ListRef::from_main(main);
    // Declared lists in order of first reference, with their filter text.
    let mut declared: Vec<(&str, Option<String>)> = Vec::new();
    for r in &refs {
        match declared.iter_mut().find(|(n, _)| *n == r.list) {
            Some((_, filter)) => {
                *filter = match (filter.take(), &r.filter) {
                    (Some(a), Some(b)) => Some(format!("{a} or {b}")),
                    _ => None,
                };
            }
            None => declared.push((r.list.as_str(), r.filter.as_ref().map(|f| f.to_string()))),
        }
    }
    let mut out = Vec::new();
    for (tool, def) in tools {
        // The ID the tool is called by (its name sanitised under compat, like the runtime's).
        let tool_id = defined_text(namespace, IdType::Tool, tool, compat);
        let used = interpolated_fields(def);
        for (list, filter) in &declared {
            let fields: Vec<&String> = used
                .iter()
                .filter(|(l, _)| l == list)
                .map(|(_, f)| f)
                .collect();
            let base = ListUse {
                tool_id: tool_id.clone(),
                list: (*list).to_string(),
                field: None,
                filter: filter.clone(),
                schema: schema.to_string(),
            };
            if fields.is_empty() {
                out.push(base);
            } else {
                out.extend(fields.into_iter().map(|f| ListUse {
                    field: Some(f.clone()),
                    ..base.clone()
                }));
            }
        }
    }
    out
}

/// The `(list, field)` pairs interpolated in a tool's parameters (`z.primitive` and `z.options`).
fn interpolated_fields(tool: &Value) -> BTreeSet<(String, String)> {
    let mut found = BTreeSet::new();
    let Some(Value::Array(params)) = tool.get("parameters") else {
        return found;
    };
    for p in params {
        let Some(z) = p.get("z").and_then(Value::as_object) else {
            continue;
        };
        let options = z.get("options").and_then(Value::as_array);
        let texts = z
            .get("primitive")
            .into_iter()
            .chain(options.into_iter().flatten())
            .filter_map(Value::as_str);
        for text in texts {
            for i in find_interpolations(text) {
                if let Some((list, field)) = i.as_list_ref() {
                    found.insert((list.to_string(), field.to_string()));
                }
            }
        }
    }
    found
}

/// Every list use of many schemas.
#[derive(Clone, Debug, Default)]
pub struct ReverseIndex {
    uses: Vec<ListUse>,
}

impl ReverseIndex {
    pub fn new() -> ReverseIndex {
        ReverseIndex::default()
    }

    /// Adds the uses of a schema's `main` (tool names sanitised under `compat`, see [`list_uses`]).
    pub fn add_schema(&mut self, main: &Value, schema: &str, compat: bool) {
        self.uses.extend(list_uses(main, schema, compat));
    }

    /// Adds uses computed elsewhere (e.g. on other threads).
    pub fn extend(&mut self, uses: impl IntoIterator<Item = ListUse>) {
        self.uses.extend(uses);
    }

    /// The uses of `list`, sorted by tool ID, then field.
    pub fn uses_of(&self, list: &str) -> Vec<&ListUse> {
        let mut v: Vec<&ListUse> = self.uses.iter().filter(|u| u.list == list).collect();
        v.sort();
        v.dedup();
        v
    }

    /// `"list:field" → [tool IDs]` (sorted, distinct) for every interpolated field.
    pub fn by_key(&self) -> BTreeMap<String, Vec<String>> {
        let mut map: BTreeMap<String, BTreeSet<&str>> = BTreeMap::new();
        for u in &self.uses {
            if let Some(f) = &u.field {
                map.entry(format!("{}:{f}", u.list))
                    .or_default()
                    .insert(&u.tool_id);
            }
        }
        map.into_iter()
            .map(|(k, v)| (k, v.into_iter().map(str::to_string).collect()))
            .collect()
    }

    /// The text `flowmcp list-refs <list>` prints (chapter 03, "CLI Access"):
    ///
    /// ```text
    /// evmChains (v1.0.0) — 15 entries, 4 fields
    /// Referenced by:
    ///   etherscan/tool/getContractAbi (filter: etherscanAlias exists)
    ///
    /// Index:
    ///   evmChains:etherscanAlias -> [ 'etherscan/tool/getContractAbi' ]
    ///   evmChains (handlers only) -> [ 'moralis/tool/getBalance' ]
    /// ```
    ///
    /// A tool is listed once under "Referenced by", whatever number of fields it interpolates.
    pub fn render(&self, list: &SharedList) -> String {
        let uses = self.uses_of(&list.name);
        let mut out = format!(
            "{} (v{}) — {} entries, {} fields\n",
            list.name,
            list.version.as_deref().unwrap_or("?"),
            list.entries.len(),
            list.fields.len()
        );
        if uses.is_empty() {
            out.push_str("Referenced by: none\n");
            return out;
        }
        out.push_str("Referenced by:\n");
        let mut seen = BTreeSet::new();
        for u in &uses {
            if !seen.insert(u.tool_id.as_str()) {
                continue;
            }
            match &u.filter {
                Some(f) => out.push_str(&format!("  {} (filter: {f})\n", u.tool_id)),
                None => out.push_str(&format!("  {}\n", u.tool_id)),
            }
        }
        out.push_str("\nIndex:\n");
        let mut by_field: BTreeMap<Option<&str>, BTreeSet<&str>> = BTreeMap::new();
        for u in &uses {
            by_field
                .entry(u.field.as_deref())
                .or_default()
                .insert(&u.tool_id);
        }
        // Fields first, the handler-only group last.
        let mut groups: Vec<(Option<&str>, BTreeSet<&str>)> = by_field.into_iter().collect();
        groups.sort_by_key(|(f, _)| (f.is_none(), *f));
        for (field, tools) in groups {
            let key = match field {
                Some(f) => format!("{}:{f}", list.name),
                None => format!("{} (handlers only)", list.name),
            };
            let ids: Vec<String> = tools.iter().map(|t| format!("'{t}'")).collect();
            out.push_str(&format!("  {key} -> [ {} ]\n", ids.join(", ")));
        }
        out
    }

    /// The same as JSON: `{ list, version, entries, fields, referencedBy: [ { tool, field, filter,
    /// schema } ], index: { "list:field": [ … ] } }`.
    pub fn render_json(&self, list: &SharedList) -> Value {
        let uses = self.uses_of(&list.name);
        let refs: Vec<Value> = uses
            .iter()
            .map(|u| {
                json!({
                    "tool": u.tool_id,
                    "field": u.field,
                    "filter": u.filter,
                    "schema": u.schema,
                })
            })
            .collect();
        let prefix = format!("{}:", list.name);
        let index: Map<String, Value> = self
            .by_key()
            .into_iter()
            .filter(|(k, _)| k.starts_with(&prefix))
            .map(|(k, v)| (k, json!(v)))
            .collect();
        json!({
            "list": list.name,
            "version": list.version,
            "entries": list.entries.len(),
            "fields": list.fields.len(),
            "referencedBy": refs,
            "index": index,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uses_and_rendering() {
        let list = SharedList::from_json(
            &json!({ "meta": { "name": "evmChains", "version": "1.0.0", "fields": [
                { "key": "alias", "type": "string" }, { "key": "etherscanAlias", "type": "string" } ] },
                "entries": [ { "alias": "a" }, { "alias": "b" } ] }),
            "_lists/evm-chains.mjs",
        )
        .unwrap();
        let a = json!({
            "namespace": "etherscan",
            "sharedLists": [ { "ref": "evmChains", "version": "1.0.0", "filter": { "key": "etherscanAlias", "exists": true } } ],
            "tools": {
                "getAbi": { "parameters": [ { "z": { "primitive": "enum({{evmChains:etherscanAlias}})" } } ] },
                "getGas": { "parameters": [ { "z": { "primitive": "enum(x,{{evmChains:etherscanAlias}},{{evmChains:alias}})" } } ] }
            }
        });
        let b = json!({
            "namespace": "moralis",
            "sharedLists": [ { "ref": "evmChains", "version": "1.0.0" }, { "ref": "other", "version": "1.0.0" } ],
            "tools": { "getBalance": { "parameters": [] } }
        });
        let mut index = ReverseIndex::new();
        index.add_schema(&a, "etherscan/a.mjs", false);
        index.add_schema(&b, "moralis/b.mjs", false);
        index.add_schema(&json!({ "tools": {} }), "x.mjs", false);
        assert_eq!(
            index.by_key(),
            BTreeMap::from([
                (
                    "evmChains:alias".to_string(),
                    vec!["etherscan/tool/getGas".to_string()]
                ),
                (
                    "evmChains:etherscanAlias".to_string(),
                    vec![
                        "etherscan/tool/getAbi".to_string(),
                        "etherscan/tool/getGas".to_string()
                    ]
                ),
            ])
        );
        assert_eq!(
            index.render(&list),
            "evmChains (v1.0.0) — 2 entries, 2 fields\n\
             Referenced by:\n  \
               etherscan/tool/getAbi (filter: etherscanAlias exists)\n  \
               etherscan/tool/getGas (filter: etherscanAlias exists)\n  \
               moralis/tool/getBalance\n\
             \n\
             Index:\n  \
               evmChains:alias -> [ 'etherscan/tool/getGas' ]\n  \
               evmChains:etherscanAlias -> [ 'etherscan/tool/getAbi', 'etherscan/tool/getGas' ]\n  \
               evmChains (handlers only) -> [ 'moralis/tool/getBalance' ]\n"
        );
        let j = index.render_json(&list);
        assert_eq!(j["referencedBy"].as_array().unwrap().len(), 4);
        assert_eq!(j["index"].as_object().unwrap().len(), 2);
    }
}
