//! `completion/complete`: the values a prompt's or skill's argument takes, computed once per
//! catalog load (docs/decisions.md, D128).
//!
//! An argument's candidates come from its own declaration (a skill input of type `enum`) and from
//! the tool parameters it is handed to: a skill's `prefill` entry that passes `{{input:key}}` to a
//! parameter, or a tool the content names (`{{tool:…}}`) with a parameter of the argument's
//! name. Such a parameter gives its `enum(…)` values (shared-list references resolved with the
//! schema's `sharedLists` filters) and its `default(…)`. When a parameter's values come from a
//! shared list whose entries point into the list of another argument's values (a subdivision's
//! `countryRef` holding country codes), the other argument's value in the request's
//! `context.arguments` narrows the candidates to the entries that point to it.

use std::collections::{BTreeSet, HashMap, HashSet};

use flowmcp_catalog::serde_json::Value;
use flowmcp_catalog::{Catalog, ToolEntry, runtime::Kind};
use flowmcp_spec::placeholder::{ContentPlaceholder, ContentType, find_interpolations};
use flowmcp_spec::zod::{EnumItem, Primitive};
use rmcp::model::CompletionInfo;

/// The candidate values of every completable prompt argument of a catalog.
#[derive(Debug, Default)]
pub(crate) struct Completions {
    /// Prompt name → argument name → its candidates.
    prompts: HashMap<String, HashMap<String, Candidates>>,
}

/// What one argument completes to.
#[derive(Debug, Default)]
struct Candidates {
    /// Every value, distinct, in source order.
    values: Vec<String>,
    /// Narrowings by other arguments: the other argument's name, and for each of its values the
    /// candidates that belong to it.
    narrowed: Vec<(String, HashMap<String, Vec<String>>)>,
}

/// One tool parameter an argument is handed to, as far as completion needs it.
struct Source<'c> {
    entry: &'c ToolEntry,
    param: String,
}

impl Completions {
    /// The candidates of `catalog`'s prompts and skills.
    pub(crate) fn of(catalog: &Catalog) -> Completions {
        let mut prompts = HashMap::new();
        for entry in catalog.library().entries() {
            // Argument → the tool parameters it reaches.
            let mut sources: HashMap<&str, Vec<Source<'_>>> = HashMap::new();
            for p in &entry.prefill {
                let Some(tool) = catalog.find(&p.tool) else {
                    continue;
                };
                for (param, value) in &p.params {
                    let Some(key) = value.as_str().and_then(input_key) else {
                        continue;
                    };
                    if let Some(input) = entry.inputs.iter().find(|i| i.key == key) {
                        sources.entry(input.key.as_str()).or_default().push(Source {
                            entry: tool,
                            param: param.clone(),
                        });
                    }
                }
            }
            for found in find_interpolations(&entry.content) {
                let Some(ContentPlaceholder::Reference {
                    ty: ContentType::Tool,
                    target,
                    ..
                }) = ContentPlaceholder::of(&found.inner)
                else {
                    continue;
                };
                let id = entry.target_id(ContentType::Tool, &target);
                let Some(tool) = catalog
                    .find(&id)
                    .filter(|t| matches!(t.descriptor.kind, Kind::Tool))
                else {
                    continue;
                };
                for input in &entry.inputs {
                    if tool.descriptor.params.iter().any(|p| p.key == input.key) {
                        sources.entry(input.key.as_str()).or_default().push(Source {
                            entry: tool,
                            param: input.key.clone(),
                        });
                    }
                }
            }
            let mut args: HashMap<String, Candidates> = HashMap::new();
            for input in &entry.inputs {
                let mut c = Candidates::default();
                let mut seen = HashSet::new();
                for v in &input.values {
                    if seen.insert(v.clone()) {
                        c.values.push(v.clone());
                    }
                }
                for s in sources.get(input.key.as_str()).into_iter().flatten() {
                    for v in parameter_values(s.entry, &s.param) {
                        if seen.insert(v.clone()) {
                            c.values.push(v);
                        }
                    }
                }
                // Narrowings: another argument handed to a parameter of the same tool.
                for other in &entry.inputs {
                    if other.key == input.key {
                        continue;
                    }
                    for s in sources.get(input.key.as_str()).into_iter().flatten() {
                        let Some(o) = sources
                            .get(other.key.as_str())
                            .into_iter()
                            .flatten()
                            .find(|o| std::ptr::eq(o.entry, s.entry))
                        else {
                            continue;
                        };
                        if let Some(by) = narrowing(catalog, s.entry, &s.param, &o.param)
                            && !c.narrowed.iter().any(|(k, _)| k == &other.key)
                        {
                            c.narrowed.push((other.key.clone(), by));
                        }
                    }
                }
                if !c.values.is_empty() {
                    args.insert(input.key.clone(), c);
                }
            }
            if !args.is_empty() {
                prompts.insert(entry.id.clone(), args);
            }
        }
        Completions { prompts }
    }

    /// The completion of `argument` of the prompt `prompt` for the typed `value`, with the other
    /// arguments already chosen (`context`). Unknown prompts and arguments complete to nothing.
    pub(crate) fn prompt(
        &self,
        prompt: &str,
        argument: &str,
        value: &str,
        context: Option<&HashMap<String, String>>,
    ) -> CompletionInfo {
        let Some(c) = self.prompts.get(prompt).and_then(|a| a.get(argument)) else {
            return empty();
        };
        let mut pool: &[String] = &c.values;
        for (by, values) in &c.narrowed {
            if let Some(chosen) = context.and_then(|ctx| ctx.get(by))
                && let Some(narrow) = values.get(chosen)
            {
                pool = narrow;
                break;
            }
        }
        rank(pool, value)
    }
}

/// No candidates.
fn empty() -> CompletionInfo {
    rank(&[], "")
}

/// `pool`'s values that match `typed`: those starting with it first, then those containing it
/// (both case-insensitive, each group in source order), at most the protocol's 100, with the
/// number of matches and whether more exist.
pub(crate) fn rank(pool: &[String], typed: &str) -> CompletionInfo {
    let typed = typed.to_lowercase();
    let mut prefix = Vec::new();
    let mut inner = Vec::new();
    for v in pool {
        let lower = v.to_lowercase();
        if lower.starts_with(&typed) {
            prefix.push(v.clone());
        } else if lower.contains(&typed) {
            inner.push(v.clone());
        }
    }
    prefix.extend(inner);
    let total = prefix.len();
    prefix.truncate(CompletionInfo::MAX_VALUES);
    let mut out = CompletionInfo::default();
    out.has_more = Some(total > prefix.len());
    out.total = Some(u32::try_from(total).unwrap_or(u32::MAX));
    out.values = prefix;
    out
}

/// The key of `{{input:key}}`, when `text` is exactly that.
fn input_key(text: &str) -> Option<&str> {
    text.trim()
        .strip_prefix("{{input:")?
        .strip_suffix("}}")
        .map(str::trim)
}

/// The values `param` of `tool` takes: its enum values (as its input schema lists them, shared
/// lists resolved and filtered) and its default.
fn parameter_values(tool: &ToolEntry, param: &str) -> Vec<String> {
    let Some(schema) = tool
        .descriptor
        .input_schema
        .get("properties")
        .and_then(|p| p.get(param))
    else {
        return Vec::new();
    };
    let mut out: Vec<String> = schema
        .get("enum")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(text_of)
        .collect();
    if let Some(d) = schema.get("default").and_then(text_of)
        && !out.contains(&d)
    {
        out.push(d);
    }
    out
}

/// A scalar as the text an argument carries.
fn text_of(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// The shared list and field a parameter's enum draws on (the first list reference), as its
/// schema writes it (the descriptor holds the values already resolved).
fn list_of(catalog: &Catalog, tool: &ToolEntry, param: &str) -> Option<(String, String)> {
    let schema = catalog.toolset().schema_of(tool);
    let p = schema
        .main
        .tools
        .get(&tool.descriptor.tool)?
        .parameters
        .iter()
        .find(|p| p.position.key == param)?;
    let Ok(Primitive::Enum(items)) = Primitive::parse(&p.z.primitive) else {
        return None;
    };
    items.into_iter().find_map(|i| match i {
        EnumItem::List { list, field } => Some((list, field)),
        EnumItem::Literal(_) => None,
    })
}

/// How the choice of `by` narrows `param` (both parameters of `tool`): when both draw on shared
/// lists and a field of `param`'s list holds only values of `by`'s field, each value of `by` →
/// the values of `param` whose entries hold it in that field.
fn narrowing(
    catalog: &Catalog,
    tool: &ToolEntry,
    param: &str,
    by: &str,
) -> Option<HashMap<String, Vec<String>>> {
    let (list, field) = list_of(catalog, tool, param)?;
    let (by_list, by_field) = list_of(catalog, tool, by)?;
    if list == by_list {
        return None;
    }
    let field = field.as_str();
    let lists = &catalog.toolset().schema_of(tool).shared_lists;
    let entries = lists.get(&list)?.as_array()?;
    let keys: BTreeSet<String> = lists
        .get(&by_list)?
        .as_array()?
        .iter()
        .filter_map(|e| e.get(&by_field).and_then(text_of))
        .collect();
    // The link field: every entry has a text there, and each one is a value of `by`.
    let names: BTreeSet<&String> = entries
        .iter()
        .filter_map(Value::as_object)
        .flat_map(|e| e.keys())
        .filter(|k| k.as_str() != field)
        .collect();
    let link = names.into_iter().find(|name| {
        !entries.is_empty()
            && entries.iter().all(|e| {
                e.get(name.as_str())
                    .and_then(text_of)
                    .is_some_and(|v| keys.contains(&v))
            })
    })?;
    let mut by_value: HashMap<String, Vec<String>> = HashMap::new();
    for e in entries {
        if let (Some(k), Some(v)) = (
            e.get(link.as_str()).and_then(text_of),
            e.get(field).and_then(text_of),
        ) {
            let values = by_value.entry(k).or_default();
            if !values.contains(&v) {
                values.push(v);
            }
        }
    }
    // A value of `by` without entries narrows to nothing.
    for k in keys {
        by_value.entry(k).or_default();
    }
    Some(by_value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool(values: &[&str]) -> Vec<String> {
        values.iter().map(|s| (*s).to_string()).collect()
    }

    #[test]
    fn i43_prefix_matches_come_before_substring_matches_case_insensitively() {
        let got = rank(&pool(&["ADE", "DE", "de-by", "FR"]), "de");
        assert_eq!(got.values, ["DE", "de-by", "ADE"]);
        assert_eq!(got.total, Some(3));
        assert_eq!(got.has_more, Some(false));
    }

    #[test]
    fn i43_more_than_a_hundred_matches_are_cut_with_has_more_and_total() {
        let many: Vec<String> = (0..150).map(|i| format!("v{i}")).collect();
        let got = rank(&many, "V");
        assert_eq!(got.values.len(), 100);
        assert_eq!(got.total, Some(150));
        assert_eq!(got.has_more, Some(true));
        assert_eq!(rank(&many, "").values.len(), 100);
    }

    #[test]
    fn i43_only_an_exact_input_placeholder_links_an_argument() {
        assert_eq!(input_key("{{input:year}}"), Some("year"));
        assert_eq!(input_key(" {{input: year }} "), Some("year"));
        assert_eq!(input_key("{{input:year}}-01"), None);
        assert_eq!(input_key("2026"), None);
    }
}
